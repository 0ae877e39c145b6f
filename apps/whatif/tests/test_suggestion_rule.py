"""The "lower an idle nominal quota" rule, on weekly reports written by hand.

Every figure below is a literal; the arithmetic is in the comments, not in the code
under test. A week is 168 hours.
"""

from apps.whatif.suggestions import LOWER_IDLE_QUOTA, lower_idle_quotas, peak_in_use


def report(idle_by_team: dict[str, list[dict]], queues: list[dict], in_progress=False) -> dict:
    return {
        "period": {"covered_hours": 168.0, "week_hours": 168.0, "in_progress": in_progress},
        "cost": {
            "teams": [{"team": t, "idle_by_flavor": rows} for t, rows in idle_by_team.items()]
        },
        "fairness": {"queues": queues},
    }


def idle(flavor: str, reserved: float, idle_hours: float) -> dict:
    return {"flavor": flavor, "reserved_gpu_hours": reserved, "idle_gpu_hours": idle_hours}


# vision holds 8 h100 in one queue: reserved 8 × 168 = 1344 GPU-hours a week.
QUEUES = [
    {"queue": "vision-main", "team": "vision", "flavor": "h100", "nominal": 8.0},
    {"queue": "nlp-main", "team": "nlp", "flavor": "h100", "nominal": 4.0},
]


def three_weeks(vision_idle: list[float], nlp_idle: list[float]) -> list[tuple[str, dict]]:
    # nlp reserves 4 × 168 = 672 GPU-hours a week.
    return [
        (
            week,
            report(
                {"vision": [idle("h100", 1344.0, v)], "nlp": [idle("h100", 672.0, n)]},
                QUEUES,
            ),
        )
        for week, v, n in zip(
            ["2026-W45", "2026-W46", "2026-W47"], vision_idle, nlp_idle, strict=True
        )
    ]


def test_it_proposes_the_peak_rounded_up_when_idle_half_or_more_every_week():
    # vision idle 1008/1344 = 75 %, 672/1344 = 50 % (the threshold counts), 1210/1344 ≈ 90 %.
    # nlp idle 336/672 = 50 %, 335/672 ≈ 49.9 %, 600/672 ≈ 89 %: one week below, no suggestion.
    reports = three_weeks([1008.0, 672.0, 1210.0], [336.0, 335.0, 600.0])
    peaks = {("vision", "h100"): 2.5, ("nlp", "h100"): 1.0}

    [found] = lower_idle_quotas(reports, peaks)

    assert (found.kind, found.team, found.queue, found.flavor) == (
        LOWER_IDLE_QUOTA,
        "vision",
        "vision-main",
        "h100",
    )
    # Peak 2.5 GPUs rounded up is 3: never below the peak.
    assert (found.current_nominal, found.proposed_nominal, found.peak_gpus) == (8.0, 3, 2.5)
    # Evidence newest week first.
    assert found.week_ids == ["2026-W47", "2026-W46", "2026-W45"]
    assert [round(w.idle_share, 4) for w in found.weeks] == [0.9003, 0.5, 0.75]
    assert [w.idle_gpu_hours for w in found.weeks] == [1210.0, 672.0, 1008.0]


def test_a_week_in_progress_is_left_out_and_one_finished_week_is_not_enough():
    reports = three_weeks([1008.0, 1008.0, 0.0], [0.0, 0.0, 0.0])
    # W47 idle 0 % would veto, but it is still in progress, so W45 and W46 (75 % each) decide.
    reports[2][1]["period"]["in_progress"] = True
    [found] = lower_idle_quotas(reports, {("vision", "h100"): 4.0})
    assert (found.week_ids, found.proposed_nominal) == (["2026-W46", "2026-W45"], 4)

    assert lower_idle_quotas(reports[1:], {("vision", "h100"): 4.0}) == []


def test_only_the_newest_four_finished_weeks_count():
    weeks = ["2026-W43", "2026-W44", "2026-W45", "2026-W46", "2026-W47"]
    # W43 idle 0 % is the fifth week back: ignored. The other four: 1008/1344 = 75 %.
    reports = [
        (w, report({"vision": [idle("h100", 1344.0, 0.0 if w == "2026-W43" else 1008.0)]}, QUEUES))
        for w in weeks
    ]
    [found] = lower_idle_quotas(reports, {("vision", "h100"): 2.0})
    assert found.week_ids == ["2026-W47", "2026-W46", "2026-W45", "2026-W44"]


def test_no_suggestion_when_the_peak_needs_the_whole_quota_or_the_team_has_two_queues():
    reports = three_weeks([1008.0, 1008.0, 1008.0], [600.0, 600.0, 600.0])
    # vision peaked at 7.2 → 8, its whole quota: nothing to lower.
    assert lower_idle_quotas(reports, {("vision", "h100"): 7.2, ("nlp", "h100"): 4.0}) == []
    two = [*QUEUES, {"queue": "vision-batch", "team": "vision", "flavor": "h100", "nominal": 2.0}]
    for _, data in reports:
        data["fairness"]["queues"] = two
    # Which of vision's two queues to lower is the lead's call; nlp (peak 4 of 4) has none.
    assert lower_idle_quotas(reports, {("vision", "h100"): 1.0, ("nlp", "h100"): 4.0}) == []


def test_peak_in_use_counts_overlaps_not_back_to_back_runs():
    # [0,10) 2 GPUs and [5,8) 3 GPUs overlap: 5; [10,12) 4 GPUs starts as the first ends: 4.
    assert peak_in_use([(0, 10, 2), (5, 8, 3), (10, 12, 4)]) == 5
    assert peak_in_use([]) == 0
