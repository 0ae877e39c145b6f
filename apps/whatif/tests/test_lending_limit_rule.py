"""The "held back" figure and the rule "raise a lending limit", by hand.

Times are hours from the window's start; the team's queue has 8 nominal h100 GPUs and
lends at most 2 of them.
"""

from datetime import UTC, datetime

from apps.whatif.lending import (
    HeldBack,
    HeldWeek,
    LendingQueue,
    held_back,
    held_back_in_force,
    raise_lending_limits,
)
from apps.whatif.lending_history import lending_queues, policy_in_force

# The team holds 6 GPUs for the first 4 h, then nothing.
OWN = [(0.0, 4.0, 6)]
# Other teams' pending workloads: 4 GPUs from 2 h to 8 h, 8 GPUs from 5 h to 6 h, and
# 9 GPUs from 9 h to 10 h (more than the team's whole nominal: it could never fit).
WAITING = [(2.0, 8.0, 4), (5.0, 6.0, 8), (9.0, 10.0, 9)]


def test_it_counts_idle_quota_above_the_limit_that_someone_waited_for():
    # [0, 2): unused 8 − 6 = 2, above the limit 2 − 2 = 0                      →  0
    # [2, 4): unused 2; the 4-GPU workload needs more than 2: would not fit   →  0
    # [4, 5): unused 8, above 6; waiting 4 (fits)       → min(6, 4) = 4 × 1 h →  4
    # [5, 6): unused 8, above 6; waiting 4 + 8 = 12     → min(6, 12) = 6 × 1 h →  6
    # [6, 8): above 6; waiting 4                        → 4 × 2 h               →  8
    # [8, 9): nobody waits                                                    →  0
    # [9, 10): the 9-GPU workload exceeds the unused 8: would not fit         →  0
    # Total 4 + 6 + 8 = 18 GPU-hours; at most 6 GPUs at once.
    assert held_back(8, 2, OWN, WAITING, (0.0, 10.0)) == HeldBack(18.0, 6)


def test_only_the_window_counts():
    # [5, 6): 6 × 1 h; [6, 7): 4 × 1 h → 10 GPU-hours.
    assert held_back(8, 2, OWN, WAITING, (5.0, 7.0)) == HeldBack(10.0, 6)


def test_a_limit_at_the_nominal_holds_nothing_back():
    assert held_back(8, 8, OWN, WAITING, (0.0, 10.0)) == HeldBack(0.0, 0)


def test_nobody_waiting_means_nothing_held_back():
    assert held_back(8, 2, OWN, [], (0.0, 10.0)) == HeldBack(0.0, 0)


def test_each_stretch_counts_against_the_limit_in_force_then():
    # Limit 2 until 5 h, then 8 (the nominal: it lends all), from 9 h no limit at all.
    # [4, 5): unused 8, above 2 → 6; waiting 4 → 4 × 1 h = 4; nothing before (as above).
    # [5, 9): above the limit 8 − 8 = 0 → 0. [9, 10): no limit, nothing held back.
    in_force = [(float("-inf"), 8, 2), (5.0, 8, 8), (9.0, 8, None)]
    assert held_back_in_force(in_force, OWN, WAITING, (0.0, 10.0)) == HeldBack(4.0, 4)


def test_the_policy_in_force_is_read_from_the_audited_saves():
    q = LendingQueue("nlp", "nlp", "h100", "research", nominal=16, lending_limit=10)

    def policy(limit):
        gpu = {"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "16"}
        return {"quotas": [{**gpu, "lending_limit": limit}]}

    created, raised = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    # Hours since the epoch: 2026-01-01 is day 20,454, 490,896 h; the next day 490,920 h.
    saves = [(created, None, {"quotas": []}), (raised, {"quotas": []}, policy("12"))]
    # Created empty, then saved with limit 12: before the creation, the earliest saved
    # quota (16, 12); from the creation no quota; from the save 16 and 12.
    assert policy_in_force(q, saves) == [
        (float("-inf"), 16.0, 12.0),
        (490_896.0, 0.0, None),
        (490_920.0, 16.0, 12.0),
    ]
    # A save from limit 4 to no limit: before it 4, then none. No saves: as saved now.
    assert policy_in_force(q, [(raised, policy("4"), policy(None))]) == [
        (float("-inf"), 16.0, 4.0),
        (490_920.0, 16.0, None),
    ]
    assert policy_in_force(q, []) == [(float("-inf"), 16, 10)]


NLP = LendingQueue("nlp", "nlp", "h100", "research", nominal=16, lending_limit=10)


def test_it_raises_the_limit_by_the_median_peak_held_back():
    held = {("nlp", "h100"): [HeldWeek("2026-W10", 120.0, 4), HeldWeek("2026-W09", 30.0, 2)]}
    [found] = raise_lending_limits([NLP], held)
    # Both weeks ≥ 24 GPU-hours; median of peaks 4 and 2 = 3; 10 + 3 = 13 ≤ nominal 16.
    assert (found.queue, found.current_limit, found.proposed_limit) == ("nlp", 10, 13)
    assert found.title == "Lend more of nlp on h100: 10 → 13 GPUs"
    assert found.evidence()["rows"] == [["2026-W10", "120.0", "4"], ["2026-W09", "30.0", "2"]]
    saved = {"quotas": [{"flavor": "h100", "resource": "nvidia.com/gpu", "lending_limit": "10"}]}
    assert found.draft(saved)["quotas"][0]["lending_limit"] == "13"


def test_it_never_proposes_more_than_the_nominal():
    near = LendingQueue("nlp", "nlp", "h100", "research", nominal=16, lending_limit=15)
    held = {("nlp", "h100"): [HeldWeek("2026-W10", 120.0, 4), HeldWeek("2026-W09", 30.0, 2)]}
    [found] = raise_lending_limits([near], held)
    assert found.proposed_limit == 16  # 15 + 3 = 18, capped at the nominal 16


def test_one_quiet_week_is_enough_to_propose_nothing():
    held = {("nlp", "h100"): [HeldWeek("2026-W10", 120.0, 4), HeldWeek("2026-W09", 23.9, 2)]}
    assert raise_lending_limits([NLP], held) == []  # 23.9 < 24 GPU-hours


def test_one_week_is_not_enough():
    assert raise_lending_limits([NLP], {("nlp", "h100"): [HeldWeek("2026-W10", 120.0, 4)]}) == []


def snapshot(name, team, cohort, lending_limit, flavor="h100"):
    quota = {"flavor": flavor, "resource": "nvidia.com/gpu", "nominal": "16",
             "borrowing_limit": None, "lending_limit": lending_limit}  # fmt: skip
    return {"name": name, "team": team, "cohort": cohort, "quotas": [quota]}


def test_only_a_teams_one_queue_on_the_flavor_in_a_cohort_with_a_limit_is_read():
    saved = [
        snapshot("nlp", "nlp", "research", "10"),
        snapshot("vision", "vision", "research", None),  # no lending limit
        snapshot("solo", "solo", None, "4"),  # no cohort: nobody to lend to
        snapshot("audio", "audio", "research", "2"),
        snapshot("audio-batch", "audio", None, None),  # audio's second h100 queue
    ]
    assert lending_queues(saved) == [NLP]
