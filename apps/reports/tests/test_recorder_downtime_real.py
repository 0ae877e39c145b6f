"""Recorder downtime on the real control plane (the real Kueue, KWOK pods): while the
recorder is stopped a higher-priority Job preempts a running one and is deleted, so the
victim is re-admitted; the recorder comes back. The API server still holds the events
since the saved cursor, so the resumed watch replays them: the history has the
preemption and both admissions, seen as they happened, and no gap. Expected facts come
from the Workloads the test itself read through the API while the recorder was down."""

from __future__ import annotations

import json

import pytest

from apps.reports.models import HistoryGap, WorkloadRecord
from apps.reports.recorder import run_recorder
from apps.reports.tests.test_recorder_downtime_live import cond, when
from core.kube import KubeClient
from realcluster.nodes import gpu_node
from testkit.real_cluster import RealCluster, suspended_job
from testkit.recorder import transitions
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)
NS = "team-vision"
KUEUE = "kueue.x-k8s.io/v1beta2"


@pytest.fixture(params=["real"])
def real(request, settings):
    """The session's real control plane, one 8-GPU queue; wiped after the test."""
    plane, portal_kubeconfig = request.getfixturevalue("real_control_plane")
    cluster = RealCluster(plane, portal_kubeconfig)
    settings.KUBECONFIG = str(portal_kubeconfig)  # the recorder runs as the portal
    settings.KUEUE_API_VERSION = "v1beta2"
    settings.QM_KUBE_TIMEOUT_SECONDS = 5.0
    cluster.apply(_one_queue_of_eight_gpus())
    yield cluster
    cluster.wipe()


def _one_queue_of_eight_gpus() -> list[dict]:
    quota = {"name": "nvidia.com/gpu", "nominalQuota": 8}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
        gpu_node("gpu-0", labels={"gpu": "h100"}, resources={"nvidia.com/gpu": "8"}),
        {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "h100"},
         "spec": {"nodeLabels": {"gpu": "h100"}}},
        {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": "low"},
         "value": 10},
        {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": "high"},
         "value": 1000},
        {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": "vision"}, "spec": {
            "namespaceSelector": {}, "preemption": {"withinClusterQueue": "LowerPriority"},
            "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
                                "flavors": [{"name": "h100", "resources": [quota]}]}]}},
        {"apiVersion": KUEUE, "kind": "LocalQueue",
         "metadata": {"name": "vision", "namespace": NS}, "spec": {"clusterQueue": "vision"}},
    ]  # fmt: skip


def job(name: str, priority: str) -> dict:
    return suspended_job(name, NS, "vision", priority)


def workload_of(cluster: RealCluster, job_name: str) -> dict | None:
    mine = [
        w
        for w in cluster.list("Workload")
        if w["metadata"].get("namespace") == NS
        and w["metadata"]["ownerReferences"][0]["name"] == job_name
    ]
    return mine[0] if mine else None


def record() -> dict:
    with KubeClient() as kube:
        return run_recorder(seconds=3.0, kube=kube)


def test_a_preemption_during_recorder_downtime_is_in_the_history_on_the_real_kueue(real):
    real.kubectl("create", "-f", "-", stdin=_yaml(job("victim", "low")))
    first = wait_until(
        lambda: cond(w := workload_of(real, "victim"), "Admitted").get("status") == "True" and w,
        timeout=120,
    )
    record()
    victim_uid = first["metadata"]["uid"]

    # The recorder is stopped from here on.
    real.kubectl("create", "-f", "-", stdin=_yaml(job("urgent", "high")))
    preemptor = wait_until(
        lambda: cond(w := workload_of(real, "urgent"), "Admitted").get("status") == "True" and w,
        timeout=120,
    )
    real.kubectl("delete", "job", "urgent", "-n", NS, "--wait=false")
    again = wait_until(
        lambda: (
            (w := workload_of(real, "victim"))
            and cond(w, "Admitted").get("status") == "True"
            and when(w, "Admitted") > when(first, "Admitted")
            and w
        ),
        timeout=120,
    )
    stats = record()

    assert stats["gaps"] == 0 and not HistoryGap.objects.exists()
    steps = transitions(victim_uid)
    assert ("preempted", "InClusterQueue") in steps and ("evicted", "Preempted") in steps
    assert [t for t, _ in steps].count("admitted") == 2
    record_ = WorkloadRecord.objects.get(uid=victim_uid)
    preemption = record_.transitions.get(type="preempted")
    assert not preemption.rebuilt  # replayed by the resumed watch, not rebuilt from Events
    assert preemption.detail["preemptor_uid"] == preemptor["metadata"]["uid"]
    admissions = sorted(t.at.timestamp() for t in record_.transitions.filter(type="admitted"))
    assert admissions == [when(first, "Admitted"), when(again, "Admitted")]


def _yaml(obj: dict) -> str:
    return json.dumps(obj)  # kubectl reads JSON as YAML
