"""``record_history_gap`` stores a gap and what Kueue's Events show inside it: once
(replays add nothing), never a step twice because an Event is a second off, never for
a workload the portal never saw, and never claiming coverage it does not have."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from apps.reports import services
from apps.reports.models import WorkloadRecord, WorkloadTransition
from testkit import history
from testkit.history import iso

pytestmark = pytest.mark.django_db
T = 1_795_000_000.0  # a whole second
START, END = T + 600, T + 1_800  # the recorder missed [T + 10 min, T + 30 min]


def moment(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=UTC)


def event(uid: str, reason: str, ts: float, message: str = "") -> dict:
    return {
        "reason": reason,
        "message": message or reason,
        "involvedObject": {"kind": "Workload", "namespace": "team-vision", "uid": uid},
        "firstTimestamp": iso(ts),
        "lastTimestamp": iso(ts),
        "count": 1,
    }


def kueue_events() -> list[dict]:
    preemption = "Preempted to accommodate a workload (UID: uid-b, JobUID: j) due to prioritization in the ClusterQueue"
    return [
        event("uid-train-a", "QuotaReserved", T + 60),  # before the gap: seen live already
        event("uid-train-a", "EvictedDueToPreempted", T + 900, preemption),
        event("uid-train-a", "Preempted", T + 900, preemption),
        event("uid-train-a", "QuotaReserved", T + 1_200),
        event("uid-train-a", "Admitted", T + 1_201),  # Kueue's clock a second on
        event("uid-never-seen", "Admitted", T + 1_000),
    ]


@pytest.fixture
def train_a():
    history.record(history.life("train-a", "team-vision", created=T, admitted=T + 60, ended=None))
    # The relist after the gap showed the re-admission in the conditions.
    services.record_workload_events(
        history.life("train-a", "team-vision", created=T, admitted=T + 1_200, ended=None)[1:],
        rebuilt_since=moment(START),
    )


def steps() -> list[tuple[str, float, bool]]:
    rows = WorkloadTransition.objects.filter(workload__uid="uid-train-a").order_by("at", "type")
    return [(t.type, t.at.timestamp() - T, t.rebuilt) for t in rows]


def test_it_rebuilds_the_preemption_once(train_a):
    gap = services.record_history_gap(moment(START), moment(END), "watch_expired", kueue_events())
    assert gap.rebuilt == 2 and gap.events_from == moment(T + 60) and gap.covered_by_events
    assert steps() == [
        ("created", 0, False),
        ("admitted", 60, False),
        ("quota_reserved", 60, False),
        ("evicted", 900, True),
        ("preempted", 900, True),
        ("admitted", 1_200, True),  # the relist's; the Event a second later is the same step
        ("quota_reserved", 1_200, True),
    ]
    again = services.record_history_gap(moment(START), moment(END), "watch_expired", kueue_events())
    assert again.rebuilt == 0 and len(steps()) == 7


def test_unreadable_events_leave_the_gap_unknown(train_a):
    gap = services.record_history_gap(moment(START), moment(END), "watch_expired", None)
    assert gap.rebuilt == 0 and gap.events_from is None and not gap.covered_by_events


def test_events_that_begin_inside_the_gap_do_not_cover_it(train_a):
    late = [e for e in kueue_events() if e["firstTimestamp"] > iso(START)]
    gap = services.record_history_gap(moment(START), moment(END), "watch_expired", late)
    assert gap.rebuilt == 2 and not gap.covered_by_events


def test_a_first_admission_inside_the_gap_becomes_the_first_admission():
    # Pending before the gap; the relist shows only the re-admission at +20 min.
    history.record(history.life("train-c", "team-vision", created=T, admitted=None, ended=None))
    services.record_workload_events(
        history.life("train-c", "team-vision", created=T, admitted=T + 1_200, ended=None)[1:],
        rebuilt_since=moment(START),
    )
    events = [
        event("uid-train-c", "Admitted", T + 700),
        event("uid-train-c", "EvictedDueToPreempted", T + 900),
        event("uid-train-c", "Admitted", T + 1_200),
    ]
    services.record_history_gap(moment(START), moment(END), "watch_expired", events)
    record = WorkloadRecord.objects.get(uid="uid-train-c")
    assert record.first_admitted_at == moment(T + 700)


def test_a_step_stamped_in_the_second_before_the_gap_began_is_rebuilt(train_a):
    # The recorder's last save was at 10 min + 0.6 s; Kueue's clock, a fraction behind and
    # truncated to whole seconds, stamped a preemption right after it with the 10-min second
    # before. Two seconds earlier is before the gap.
    start = moment(START + 0.6)
    preemption = "Preempted to accommodate a workload (UID: uid-b, JobUID: j) due to prioritization in the ClusterQueue"
    events = [
        event("uid-train-a", "Preempted", START - 1, preemption),
        event("uid-train-a", "EvictedDueToPreempted", START - 2, preemption),
    ]
    gap = services.record_history_gap(start, moment(END), "watch_expired", events)
    assert gap.rebuilt == 1
    assert ("preempted", 599, True) in steps() and ("evicted", 598, True) not in steps()
