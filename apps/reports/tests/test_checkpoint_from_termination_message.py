"""The report's "lost since last checkpoint" reads the checkpoint a stopped trainer left
in its termination message (docs/checkpoints.md), not only its Workload annotation.

A 2-GPU job is admitted at minute 7 and preempted at 30. By hand: without a reported
checkpoint it lost 30 − 7 = 23 min × 2 GPUs = 46 GPU-minutes since admission; once its
pod reports a checkpoint at 20, 30 − 20 = 10 min × 2 GPUs = 20 GPU-minutes.
"""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest

from apps.reports import services
from apps.reports.compute.preemption import lost_gpu_hours
from apps.reports.compute.weeks import week_of
from apps.reports.loading import load_week
from apps.reports.models import WorkloadRecord
from informer.kinds import POD
from testkit import workloads as w

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _stamps_after_now(monkeypatch):
    w.restart_clock(monkeypatch)


def _version(patch: dict) -> dict:
    obj = w.workload("train-1")
    obj["metadata"].update(uid="wl-train-1", creationTimestamp=w.stamp(0))
    return {**copy.deepcopy(obj), **patch}


def _stopped_pod(job: str, message: str) -> dict:
    terminated = {"exitCode": 143, "reason": "Error", "message": message}
    return {
        "metadata": {
            "name": f"{job}-0-x7k2p",
            "namespace": "team-vision",
            "labels": {"quartermaster.io/job": job},
        },
        "status": {"containerStatuses": [{"name": "trainer", "state": {"terminated": terminated}}]},
    }


def _preempted_run():
    at_31 = w.T0 + timedelta(minutes=31)
    week = load_week(week_of(at_31), now=at_31)
    (run,) = [r for r in week.runs if r.preempted]
    return run


def test_a_checkpoint_in_a_termination_message_narrows_the_reported_loss(team):
    services.record_workload_events(
        [("ADDED", _version(w.admitted(7))), ("MODIFIED", _version(w.preempted(30, "uid-b", 7)))]
    )
    assert lost_gpu_hours(_preempted_run()) == (pytest.approx(46 / 60), False)

    pod = _stopped_pod("train-1", f"SIGTERM\nquartermaster.io/last-checkpoint={w.stamp(20)}\n")
    assert services.record_reported_checkpoints([pod]) == 1
    assert services.record_reported_checkpoints([pod]) == 0  # a replayed event adds nothing
    assert lost_gpu_hours(_preempted_run()) == (pytest.approx(20 / 60), True)
    record = WorkloadRecord.objects.get(uid="wl-train-1")
    assert record.last_checkpoint_at == w.T0 + timedelta(minutes=20)


def test_pods_of_other_jobs_or_without_the_line_add_nothing(team):
    services.record_workload_events([("ADDED", _version(w.admitted(7)))])
    others = [
        _stopped_pod("train-2", f"quartermaster.io/last-checkpoint={w.stamp(20)}"),
        _stopped_pod("train-1", "OOMKilled"),
    ]
    assert services.record_reported_checkpoints(others) == 0


@pytest.mark.django_db(transaction=True)
def test_the_recorder_follows_batch_pods_through_the_informer(sim_without_kueue, settings, team):
    """Over HTTP: the stopped pod's status reaches the recorder through the one informer."""
    from testkit.recorder import create, record, set_status

    sim, settings.QM_CLUSTER_SYNC, settings.QM_JOBS_WATCH = sim_without_kueue, True, False
    uid = create(sim, "train-1")
    set_status(sim, "train-1", w.admitted(7))
    pod = _stopped_pod("train-1", f"quartermaster.io/last-checkpoint={w.stamp(20)}")
    spec = {"containers": [{"name": "trainer", "image": "trainer"}]}
    with sim.client() as kube:
        kube.create(
            POD, {"apiVersion": "v1", "kind": "Pod", "metadata": pod["metadata"], "spec": spec}
        )
        path = POD.path("team-vision", pod["metadata"]["name"]) + "/status"
        body, merge = {"status": pod["status"]}, "application/merge-patch+json"
        kube._call("PATCH", POD, "patch", path, body=body, content_type=merge)

    result = record(sim)
    assert result["subscribers"]["history-checkpoints"]["checkpoints"] == 1
    assert WorkloadRecord.objects.get(uid=uid).last_checkpoint_at == w.T0 + timedelta(minutes=20)
