"""The same downtime against the simulated cluster's own Kueue (live controller, wall
clock): a higher-priority Job preempts a running one while the recorder is stopped,
the preemptor is deleted so the victim is re-admitted, the API server restarts (its
watch history is gone: 410), and the recorder comes back. What the cluster's Events
say is rebuilt. Expected numbers come from the Workload the test itself observed
through the API while the recorder was down."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from apps.queues.reconcile.observe import ref
from apps.reports import services
from apps.reports.compute.weeks import week_of
from apps.reports.models import HistoryGap, WorkloadRecord
from core.kube import ResourceRef
from testkit.recorder import NAMESPACES, record, transitions
from testkit.sim_cluster import SimCluster
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)
NS = "team-vision"
JOBS = ResourceRef("batch", "v1", "jobs", "Job", True)
NODES = ResourceRef("", "v1", "nodes", "Node", False)
DISCARD = "http://127.0.0.1:9"


@pytest.fixture
def live(tmp_path, settings):
    cluster = SimCluster(tmp_path, controller=True, clock="real").start()
    settings.KUBECONFIG = str(cluster.kubeconfig)
    settings.KUEUE_API_VERSION = "v1beta2"
    settings.QM_KUBE_TIMEOUT_SECONDS = 5.0
    with cluster.client() as kube:
        _one_queue_of_eight_gpus(kube)
    yield cluster
    cluster.stop()


def _one_queue_of_eight_gpus(kube) -> None:
    kube.create(NAMESPACES, {"metadata": {"name": NS}})
    kube.create(NODES, {"metadata": {"name": "gpu-0", "labels": {"gpu": "h100"}}})
    resources = {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8"}
    kube._call("PATCH", NODES, "patch", NODES.path("", "gpu-0") + "/status",
               body={"status": {"allocatable": resources, "capacity": resources}},
               content_type="application/merge-patch+json")  # fmt: skip
    kube.create(ref("ResourceFlavor", "v1beta2"),
                {"metadata": {"name": "h100"}, "spec": {"nodeLabels": {"gpu": "h100"}}})  # fmt: skip
    for name, value in (("low", 10), ("high", 1000)):
        kube.create(ref("WorkloadPriorityClass", "v1beta2"),
                    {"metadata": {"name": name}, "value": value})  # fmt: skip
    quota = {"name": "nvidia.com/gpu", "nominalQuota": 8}
    kube.create(ref("ClusterQueue", "v1beta2"), {"metadata": {"name": "vision"}, "spec": {
        "namespaceSelector": {}, "preemption": {"withinClusterQueue": "LowerPriority"},
        "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
                            "flavors": [{"name": "h100", "resources": [quota]}]}]}})  # fmt: skip
    kube.create(ref("LocalQueue", "v1beta2"),
                {"metadata": {"name": "vision", "namespace": NS}, "spec": {"clusterQueue": "vision"}})  # fmt: skip


def job(name: str, priority: str) -> dict:
    container = {"name": "main", "image": "trainer",
                 "resources": {"requests": {"nvidia.com/gpu": "8"}}}  # fmt: skip
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": NS,
                     "labels": {"kueue.x-k8s.io/queue-name": "vision",
                                "kueue.x-k8s.io/priority-class": priority},
                     "annotations": {"simcluster/duration": "2h"}},
        "spec": {"parallelism": 1, "completions": 1, "suspend": True,
                 "template": {"spec": {"restartPolicy": "Never", "containers": [container]}}},
    }  # fmt: skip


def workload_of(sim, job_name: str) -> dict | None:
    mine = [
        w for w in sim.list("Workload") if w["metadata"]["ownerReferences"][0]["name"] == job_name
    ]
    return mine[0] if mine else None


def cond(obj: dict | None, kind: str) -> dict:
    found = [
        c for c in ((obj or {}).get("status") or {}).get("conditions") or [] if c["type"] == kind
    ]
    return found[0] if found else {}


def when(obj: dict, kind: str) -> float:
    return datetime.fromisoformat(
        cond(obj, kind)["lastTransitionTime"].replace("Z", "+00:00")
    ).timestamp()


def test_a_preemption_by_the_clusters_kueue_is_rebuilt_after_downtime(live, settings):
    with live.client() as kube:
        kube.create(JOBS, job("victim", "low"))
    first = wait_until(
        lambda: cond(w := workload_of(live, "victim"), "Admitted").get("status") == "True" and w
    )
    record(live)
    victim_uid = first["metadata"]["uid"]

    # The recorder is stopped from here on.
    with live.client() as kube:
        kube.create(JOBS, job("urgent", "high"))
    evicted = wait_until(
        lambda: cond(w := workload_of(live, "victim"), "Requeued").get("status") == "True" and w
    )
    preemptor = wait_until(
        lambda: cond(w := workload_of(live, "urgent"), "Admitted").get("status") == "True" and w
    )
    with live.client() as kube:
        kube.delete(JOBS, "urgent", NS, propagation="Background")
    again = wait_until(
        lambda: (
            (w := workload_of(live, "victim"))
            and cond(w, "Admitted").get("status") == "True"
            and when(w, "Admitted") > when(first, "Admitted")
            and w
        )
    )
    live.stop()  # the API server restarts: a resume from the saved resourceVersion gets 410
    live.start()
    stats = record(live)

    assert stats["gaps"] == 1
    gap = HistoryGap.objects.get()
    assert gap.covered_by_events and gap.rebuilt >= 1
    steps = transitions(victim_uid)
    assert ("preempted", "InClusterQueue") in steps and ("evicted", "Preempted") in steps
    assert [t for t, _ in steps].count("admitted") == 2
    preemption = WorkloadRecord.objects.get(uid=victim_uid).transitions.get(type="preempted")
    assert preemption.rebuilt and preemption.detail["preemptor_uid"] == preemptor["metadata"]["uid"]

    settings.PROMETHEUS_URL, settings.OPENCOST_URL = DISCARD, f"{DISCARD}/opencost"
    data = services.build_weekly_report(week_of(datetime.now(UTC))).data
    # By hand, from the victim's conditions as the test saw them: 8 GPUs admitted at A,
    # evicted at E → 8 × (E − A) GPU-seconds lost (no checkpoint); requeued at R and
    # re-admitted at Q → one requeue wait of Q − R seconds.
    admitted_at, evicted_at = when(first, "Admitted"), when(evicted, "Evicted")
    requeued_at, readmitted_at = when(evicted, "Requeued"), when(again, "Admitted")
    (loss,) = [e for e in data["preemption"]["events"] if e["uid"] == victim_uid]
    assert loss["lost_gpu_hours"] == pytest.approx(8 * (evicted_at - admitted_at) / 3600)
    (requeue,) = data["requeue_waits"]
    assert (requeue["count"], requeue["max"]) == (1, readmitted_at - requeued_at)
    (down,) = [g for g in data["gaps"] if g["kind"] == "recorder_downtime"]
    assert down["rebuilt"] is True
