"""The recorder against the simulated cluster: resume, dropped connections, 410, deletion."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from apps.reports.choices import Outcome
from apps.reports.models import WorkloadRecord, WorkloadTransition
from apps.reports.recorder import CURSOR
from informer.models import WatchCursor
from testkit import workloads as w
from testkit.recorder import create, record, set_status, transitions
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_lists_then_resumes_from_the_saved_resource_version(sim):
    uid = create(sim, "train-a")
    set_status(sim, "train-a", w.admitted(5))
    first = record(sim)
    assert first["relists"] == 1
    assert [t for t, _ in transitions(uid)] == ["created", "quota_reserved", "admitted"]
    saved = WatchCursor.objects.get(name=CURSOR).resource_version
    assert saved

    set_status(sim, "train-a", w.preempted(30, "uid-of-b", 5))
    second = record(sim)
    assert second["relists"] == 0  # resumed by watching from the cursor
    steps = transitions(uid)
    assert ("preempted", "InCohortReclamation") in steps and ("requeued", "Preempted") in steps
    assert WorkloadTransition.objects.filter(workload__uid=uid, type="preempted").get().detail == {
        "preemptor_uid": "uid-of-b"
    }


def test_replays_and_relists_never_duplicate(sim):
    uid = create(sim, "train-a")
    set_status(sim, "train-a", w.admitted(5))
    record(sim)
    before = transitions(uid)
    WatchCursor.objects.filter(name=CURSOR).update(resource_version="")  # force a relist
    record(sim)
    assert transitions(uid) == before


def test_it_survives_refused_watches_without_loss(sim):
    uid = create(sim, "train-a")
    record(sim)
    set_status(sim, "train-a", w.admitted(5))
    sim.fault(verb="watch", resource="workloads", code=503, count=2)
    stats = record(sim, seconds=4)
    assert stats["reconnects"] >= 2
    assert [t for t, _ in transitions(uid)] == ["created", "quota_reserved", "admitted"]


def test_it_recovers_from_a_dropped_stream_and_410_after_a_restart(sim):
    uid = create(sim, "train-a")
    record(sim)
    result: dict = {}

    def background():
        try:
            result.update(record(sim, seconds=12))
        finally:
            connection.close()

    thread = threading.Thread(target=background)
    thread.start()
    set_status(sim, "train-a", w.admitted(5))
    wait_until(lambda: "admitted" in [t for t, _ in transitions(uid)])
    sim.stop()  # drops the open watch; the restarted server has no event history (410)
    sim.start()
    set_status(sim, "train-a", w.finished(60))
    wait_until(lambda: "finished" in [t for t, _ in transitions(uid)], timeout=60)
    thread.join(timeout=30)
    assert result["events"] >= 2
    assert [t for t, _ in transitions(uid)] == ["created", "quota_reserved", "admitted", "finished"]


def test_history_survives_workload_deletion(sim):
    uid = create(sim, "train-a", gpus=8)
    set_status(sim, "train-a", w.admitted(5, gpus=8))
    record(sim)
    with sim.client() as kube:
        from apps.queues.reconcile.observe import ref

        kube.delete(ref("Workload", "v1beta2"), "train-a", "team-vision")
    record(sim)
    summary = WorkloadRecord.objects.get(uid=uid)
    assert summary.outcome == Outcome.DELETED
    assert summary.gpus == 8 and summary.size_class == "8"
    assert summary.gpus_by_flavor == {"h100": 8}
    assert ("deleted", "") in transitions(uid)
    assert {t for t, _ in transitions(uid)} >= {"created", "quota_reserved", "admitted"}
