"""A weight-only draft that cannot matter says so, and why.

Scenarios: two queues of 4 h100 GPUs each in the cohort ``research`` (a third, ``solo``,
in no cohort); recorded runs and waits written out by hand, so whether a workload ever
waited while another queue of its tree borrowed is read straight off the timeline.
"""

from apps.whatif.replay.contention import Contention, first_contention, weight_note
from apps.whatif.replay.trace import PodSetSpec, TraceWorkload, Window
from apps.whatif.tests.helpers import objects, queue, team_workload

MIN = 60_000
CELL = ("h100", "nvidia.com/gpu")
WINDOW = Window(0, 600 * MIN)
QUEUES = [queue("vision", "4"), queue("nlp", "4"), queue("solo", "4", cohort=None)]
POLICY = objects(QUEUES, fair_sharing=True)
WEIGHT = {"vision": {"changes": [{"field": "fair_weight", "before": "1", "after": "2"}]}}


def _wl(name, team, gpus, created_min, *runs_min) -> TraceWorkload:
    runs = tuple((a * MIN, None if b is None else b * MIN) for a, b in runs_min)
    return team_workload(
        name,
        team,
        created_min * MIN,
        (PodSetSpec(1, {"nvidia.com/gpu": gpus}, {"gpu": "h100"}),),
        recorded_admit_ms=runs[0][0] if runs else None,
        recorded_runs=runs,
    )


def test_no_wait_while_another_queue_borrowed_is_no_contention():
    # Both queues run at exactly their nominal 4 GPUs; a vision job waits 0-60 min for
    # vision's own quota. Nobody ever borrows.
    trace = [
        _wl("v-big", "vision", 4, 0, (0, 60)),
        _wl("v-next", "vision", 4, 0, (60, 120)),
        _wl("n-big", "nlp", 4, 0, (0, 120)),
    ]
    assert first_contention(POLICY, trace, WINDOW, {"vision"}) is None


def test_a_wait_while_another_queue_borrows_is_contention_from_that_moment():
    # nlp runs 6 GPUs (2 above its nominal 4) from 0 to 120 min; a vision job created
    # at 30 min waits until 120 min. First contention: 30 min, vision waits, nlp borrows.
    trace = [
        _wl("n-wide", "nlp", 6, 0, (0, 120)),
        _wl("v-late", "vision", 4, 30, (120, 180)),
    ]
    found = first_contention(POLICY, trace, WINDOW, {"vision"})
    assert found == Contention(30 * MIN, "vision", "nlp", CELL)


def test_a_queue_waiting_behind_its_own_borrowing_is_no_contention():
    # nlp borrows 2 GPUs while another nlp job waits: only nlp is involved, no weight
    # decides between queues. And solo, in no cohort, can never contend.
    trace = [
        _wl("n-wide", "nlp", 6, 0, (0, 120)),
        _wl("n-next", "nlp", 4, 10, (120, 150)),
        _wl("s-1", "solo", 4, 0, (0, 60)),
        _wl("s-2", "solo", 4, 0, (60, 90)),
    ]
    assert first_contention(POLICY, trace, WINDOW, {"vision", "solo"}) is None


def test_a_wait_after_a_preemption_counts_as_a_wait():
    # vision's job runs 0-30, is preempted, waits 30-90 and runs again; nlp borrows
    # (5 GPUs) from 40 to 100 min. First contention: 40 min.
    trace = [
        _wl("v-pre", "vision", 4, 0, (0, 30), (90, 150)),
        _wl("n-wide", "nlp", 5, 40, (40, 100)),
    ]
    found = first_contention(POLICY, trace, WINDOW, {"nlp"})
    assert found == Contention(40 * MIN, "vision", "nlp", CELL)


def test_the_note_says_why_a_weight_only_draft_cannot_matter():
    off = weight_note(WEIGHT, fair_sharing=False, contention=None)
    assert off["can_matter"] is False
    assert "fair sharing is off" in off["why"]
    quiet = weight_note(WEIGHT, fair_sharing=True, contention=None)
    assert quiet["can_matter"] is False
    assert "no workload of the drafted queues' cohorts waited while another queue" in quiet["why"]
    busy = weight_note(
        WEIGHT, fair_sharing=True, contention=Contention(30 * MIN, "vision", "nlp", CELL)
    )
    assert busy["can_matter"] is True
    assert "at 1970-01-01T00:30:00Z a workload of vision waited while nlp" in busy["why"]


def test_a_draft_that_changes_more_than_weights_gets_no_note():
    mixed = {"vision": {"changes": [*WEIGHT["vision"]["changes"], {"field": "cohort"}]}}
    assert weight_note(mixed, fair_sharing=False, contention=None) is None
    assert weight_note({"vision": {"changes": []}}, fair_sharing=False, contention=None) is None
