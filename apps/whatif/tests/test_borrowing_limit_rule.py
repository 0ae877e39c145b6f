"""Rule "add a borrowing limit where one team crowds out the rest", by hand.

Cohort research: vision, nlp and audio, one queue each on h100; weeks of 168 h.
"""

import copy

from apps.whatif.crowding import borrowing_limits

COHORTS = {"vision": "research", "nlp": "research", "audio": "research", "solo": None}
UNLIMITED = {}


def week(vision_borrowed: float, nlp_lent: float, audio_lent: float, waits: dict) -> dict:
    """A finished 168 h week; ``waits``: queue → its p95 wait in seconds."""
    return {
        "period": {"covered_hours": 168.0, "in_progress": False},
        "fairness": {
            "queues": [
                {
                    "queue": "vision",
                    "team": "vision",
                    "flavor": "h100",
                    "nominal": 8.0,
                    "borrowed_gpu_hours": vision_borrowed,
                    "lent_gpu_hours": 0.0,
                },
                {
                    "queue": "nlp",
                    "team": "nlp",
                    "flavor": "h100",
                    "nominal": 16.0,
                    "borrowed_gpu_hours": 0.0,
                    "lent_gpu_hours": nlp_lent,
                },
                {
                    "queue": "audio",
                    "team": "audio",
                    "flavor": "h100",
                    "nominal": 8.0,
                    "borrowed_gpu_hours": 0.0,
                    "lent_gpu_hours": audio_lent,
                },
            ]  # fmt: skip
        },
        "waits": [{"dimension": "queue", "key": q, "p95": s} for q, s in waits.items()],
    }


# Newest first. 2026-W10: vision borrowed 1008 GPU-h (6 GPUs × 168 h) of 1176 + 168 = 1344
# lent: 1008 / 1344 = 75 % ≥ 60 %, while nlp's p95 wait was 7200 s (2 h ≥ 1 h).
# 2026-W09: 672 GPU-h (4 GPUs × 168 h) of 800 + 200 = 1000 lent: 67 %; audio waited 5400 s.
WEEKS = [
    ("2026-W10", week(1008.0, 1176.0, 168.0, {"nlp": 7200.0, "audio": 600.0})),
    ("2026-W09", week(672.0, 800.0, 200.0, {"nlp": 60.0, "audio": 5400.0})),
]


def test_it_limits_the_queue_that_crowded_out_the_rest_every_week():
    [found] = borrowing_limits(WEEKS, COHORTS, UNLIMITED)
    assert (found.queue, found.flavor, found.cohort) == ("vision", "h100", "research")
    # Median of 6 and 4 borrowed GPUs = 5.
    assert found.proposed_limit == 5 and found.current_limit is None
    assert found.title == "Limit borrowing of vision on h100: no limit → 5 GPUs"
    saved = {"quotas": [
        {"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "8", "borrowing_limit": None},
        {"flavor": "h100", "resource": "cpu", "nominal": "64", "borrowing_limit": None},
    ]}  # fmt: skip
    assert found.draft(saved)["quotas"] == [
        {"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "8", "borrowing_limit": "5"},
        saved["quotas"][1],
    ]
    assert found.week_ids == ["2026-W10", "2026-W09"]
    rows = found.evidence()["rows"]
    assert rows[0] == ["2026-W10", "1008.0", "1344.0", "75 %", "6.0", "nlp (2.0 h)"]
    assert rows[1] == ["2026-W09", "672.0", "1000.0", "67 %", "4.0", "audio (1.5 h)"]


def test_the_median_of_three_weeks_is_rounded_up():
    # 2026-W08: 420 GPU-h = 2.5 GPUs of 500 lent (84 %), nlp waited 3600 s (exactly 1 h counts).
    weeks = [*WEEKS, ("2026-W08", week(420.0, 500.0, 0.0, {"nlp": 3600.0}))]
    [found] = borrowing_limits(weeks, COHORTS, UNLIMITED)
    assert found.proposed_limit == 4  # median of 6, 4, 2.5 = 4


def test_a_week_with_a_smaller_share_stops_it():
    # 2026-W09 at 600 of 1000 lent is exactly 60 %: still counts; 599 is not.
    at_threshold = copy.deepcopy(WEEKS)
    at_threshold[1][1]["fairness"]["queues"][0]["borrowed_gpu_hours"] = 600.0
    assert len(borrowing_limits(at_threshold, COHORTS, UNLIMITED)) == 1
    at_threshold[1][1]["fairness"]["queues"][0]["borrowed_gpu_hours"] = 599.0
    assert borrowing_limits(at_threshold, COHORTS, UNLIMITED) == []


def test_nobody_else_waiting_an_hour_stops_it():
    calm = copy.deepcopy(WEEKS)
    calm[1][1]["waits"] = [{"dimension": "queue", "key": "audio", "p95": 3599.0}]
    assert borrowing_limits(calm, COHORTS, UNLIMITED) == []


def test_its_own_teams_wait_does_not_count():
    own = copy.deepcopy(WEEKS)
    own[1][1]["waits"] = [{"dimension": "queue", "key": "vision", "p95": 90000.0}]
    assert borrowing_limits(own, COHORTS, UNLIMITED) == []


def test_no_suggestion_when_its_limit_is_already_that_low():
    assert borrowing_limits(WEEKS, COHORTS, {("vision", "h100"): 5.0}) == []
    [found] = borrowing_limits(WEEKS, COHORTS, {("vision", "h100"): 12.0})
    assert found.title == "Limit borrowing of vision on h100: 12 → 5 GPUs"


def test_fewer_than_two_weeks_or_no_cohort_propose_nothing():
    assert borrowing_limits(WEEKS[:1], COHORTS, UNLIMITED) == []
    assert borrowing_limits(WEEKS, {**COHORTS, "vision": None}, UNLIMITED) == []
