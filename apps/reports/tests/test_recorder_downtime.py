"""Recorder downtime longer than the watch window: the recorder rebuilds what Kueue's
Events still show and stores the gap; the weekly report marks the gap and never
invents a wait inside it.

The test plays Kueue against the simulated cluster over HTTP (status and Events
written through the API, as Kueue writes them), at whole seconds of the wall
clock: the gap runs from the recorder's last progress to its relist. Expected
numbers are worked out by hand from the instants the test chose.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from apps.reports import services
from apps.reports.compute.weeks import week_of
from apps.reports.gaps import for_viewer, interval
from apps.reports.models import HistoryGap, WorkloadTransition
from apps.reports.recorder import CURSOR, EVENTS
from informer.models import WatchCursor
from testkit import workloads as w
from testkit.recorder import create, emit, record, set_status, transitions
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)
DISCARD = "http://127.0.0.1:9"  # nothing listens: metrics and costs are gaps of their own


@pytest.fixture
def start_clock(monkeypatch):
    """Stamps in seconds after a base instant (``w.stamp`` takes minutes): the first whole
    second after the workloads' creation, so no status time precedes a creation."""

    def start(*created: dict) -> datetime:
        stamps = [datetime.fromisoformat(o["metadata"]["creationTimestamp"]) for o in created]
        base = max(stamps) + timedelta(seconds=1)
        monkeypatch.setattr(w, "T0", base)
        return at(base, 0)

    return start


def at(base: datetime, seconds: int) -> datetime:
    """``base + seconds``, once the wall clock has reached it (times never lie ahead)."""
    moment = base + timedelta(seconds=seconds)
    wait_until(lambda: datetime.now(UTC) >= moment, timeout=seconds + 30)
    return moment


def after(base: datetime, moment: datetime) -> int:
    """Whole seconds from ``base`` to the first whole second after ``moment``."""
    return int((moment - base).total_seconds()) + 1


def admit(sim, obj: dict, seconds: int) -> None:
    set_status(sim, obj["metadata"]["name"], w.admitted(seconds / 60))
    for reason in ("QuotaReserved", "Admitted"):
        emit(sim, obj, reason, seconds / 60)


def stop_recorder_and_expire_the_watch_window(sim, steps) -> None:
    """Nothing records while ``steps`` run; then the API server restarts, so the saved
    resourceVersion is answered with 410 Gone (its event history starts afresh)."""
    steps()
    sim.stop()
    sim.start()


def report(week: str, settings) -> dict:
    settings.PROMETHEUS_URL, settings.OPENCOST_URL = DISCARD, f"{DISCARD}/opencost"
    return services.build_weekly_report(week).data


def test_a_preemption_while_the_recorder_was_down_is_rebuilt_from_kueues_events(
    sim, start_clock, settings
):
    obj = sim.create(w.workload("train-a", gpus=2))
    uid = obj["metadata"]["uid"]
    clock = start_clock(obj)
    admit(sim, obj, 0)  # admitted at base + 0 s
    assert record(sim)["gaps"] == 0
    last_progress = WatchCursor.objects.get(name=CURSOR).updated_at
    evicted = after(clock, last_progress)  # preempted once the recorder stopped
    readmitted = evicted + 3

    def while_down():
        at(clock, evicted)
        message = w.preemption_message("uid-of-b")
        set_status(sim, "train-a", w.preempted(evicted / 60, "uid-of-b", 0))
        emit(sim, obj, "EvictedDueToPreempted", evicted / 60, message)
        emit(sim, obj, "Preempted", evicted / 60, message)
        at(clock, readmitted)
        set_status(sim, "train-a", w.readmitted(readmitted / 60, evicted_at=evicted / 60))
        for reason in ("QuotaReserved", "Admitted"):
            emit(sim, obj, reason, readmitted / 60)

    stop_recorder_and_expire_the_watch_window(sim, while_down)
    stats = record(sim)
    assert stats["gaps"] == 1 and stats["rebuilt"] >= 1

    gap = HistoryGap.objects.get()
    assert gap.start == last_progress and gap.covered_by_events
    assert gap.events_from == clock  # the first admission's Events reach back before the gap
    assert transitions(uid) == [
        ("created", ""),
        ("quota_reserved", "QuotaReserved"),
        ("admitted", "Admitted"),
        ("preempted", "InCohortReclamation"),  # only Kueue's Event says so now
        ("evicted", "Preempted"),
        ("requeued", "Preempted"),
        ("quota_reserved", "QuotaReserved"),
        ("admitted", "Admitted"),
    ]
    rebuilt = WorkloadTransition.objects.filter(workload__uid=uid, rebuilt=True)
    assert {t.type for t in rebuilt} == {
        "preempted", "evicted", "requeued", "quota_reserved", "admitted"
    }  # fmt: skip
    preemption = rebuilt.get(type="preempted")
    assert preemption.detail == {"preemptor_uid": "uid-of-b"}

    data = report(week_of(clock), settings)
    # By hand: admitted at +0 s, preempted at +evicted s with no checkpoint, 2 GPUs
    # → 2 × evicted GPU-seconds lost (from admission); re-admitted 3 s later → a 3 s requeue wait.
    assert data["preemption"]["count"] == 1
    (event,) = data["preemption"]["events"]
    assert event["lost_gpu_hours"] == pytest.approx(2 * evicted / 3600)
    assert event["assumed_from_admission"] is True
    (requeue,) = data["requeue_waits"]
    assert (requeue["count"], requeue["max"]) == (1, 3.0)
    (down,) = [g for g in data["gaps"] if g["kind"] == "recorder_downtime"]
    assert down["rebuilt"] is True and down["unknown_waits"] == 0
    assert down["start"] == gap.start.timestamp() and down["end"] == gap.end.timestamp()


def test_without_events_the_gap_stays_unknown_and_its_waits_are_not_counted(
    sim, start_clock, settings, client, admin
):
    running = sim.create(w.workload("train-a", gpus=2))
    pending = sim.create(w.workload("train-b"))  # pending since creation
    waiting = pending["metadata"]["uid"]
    clock = start_clock(running, pending)
    admit(sim, running, 0)
    record(sim)
    created_b = WorkloadTransition.objects.get(workload__uid=waiting, type="created").at
    admitted = after(clock, WatchCursor.objects.get(name=CURSOR).updated_at)

    def while_down():
        obj = sim.get("Workload", "train-b", "team-vision")
        at(clock, admitted)
        admit(sim, obj, admitted)
        # The API server dropped every Event (its --event-ttl ran out) before the restart.
        with sim.client() as kube:
            for event in kube.list(EVENTS):
                meta = event["metadata"]
                kube.delete(EVENTS, meta["name"], meta["namespace"])

    stop_recorder_and_expire_the_watch_window(sim, while_down)
    assert record(sim)["gaps"] == 1
    gap = HistoryGap.objects.get()
    assert gap.events_from is None and not gap.covered_by_events
    # train-b's admission is known from its conditions, but not whether it was also
    # admitted and evicted in between: its wait from creation is not counted.
    assert ("admitted", "Admitted") in transitions(waiting)

    data = report(week_of(clock), settings)
    assert created_b < gap.start < clock + timedelta(seconds=admitted)  # train-b's wait overlaps it
    # By hand: train-a waited from its creation to +0 s, before the gap: the only wait counted.
    created_a = WorkloadTransition.objects.get(workload__name="train-a", type="created").at
    overall = next(r for r in data["waits"] if r["dimension"] == "all")
    assert (overall["count"], overall["max"]) == (1, (clock - created_a).total_seconds())
    (down,) = [g for g in data["gaps"] if g["kind"] == "recorder_downtime"]
    assert down["rebuilt"] is False and down["unknown_waits"] == 1
    shown = [g["message"] for g in for_viewer(data["gaps"], with_reasons=False)]
    when = interval(gap.start.timestamp(), gap.end.timestamp())
    assert f"Waits unknown during recorder downtime {when}: 1 not counted" in shown
    client.force_login(admin)
    page = client.get(f"/reports/{week_of(clock)}/").content.decode()
    assert f"Waits unknown during recorder downtime {when}: 1 not counted" in page


def test_events_the_recorder_may_not_read_leave_the_gap_unknown_and_it_carries_on(sim):
    uid = create(sim, "train-a")
    record(sim)
    set_status(sim, "train-a", w.admitted(5))  # while nobody watches
    sim.stop()
    sim.start()
    sim.fault(verb="list", resource="events", code=403, count=1)  # e.g. an old ClusterRole
    stats = record(sim)
    assert stats["gaps"] == 1 and stats["rebuilt"] == 0
    gap = HistoryGap.objects.get()
    assert gap.events_from is None and not gap.covered_by_events
    assert WatchCursor.objects.get(name=CURSOR).resource_version  # resumes from here next time
    # The relist still shows the admission; only the Events are missing.
    assert [t for t, _ in transitions(uid)] == ["created", "quota_reserved", "admitted"]
