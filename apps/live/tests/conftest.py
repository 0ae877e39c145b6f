"""Live-view fixtures: the jobs app's simulated cluster, and Jobs made as kubectl would."""

from __future__ import annotations

import pytest

from apps.jobs.cluster import JOB
from apps.jobs.tests.conftest import sim, tiers  # noqa: F401 (fixtures)
from apps.live import compute
from apps.queues.reconcile.run import reconcile
from apps.queues.tests.cluster import wait_until
from apps.queues.tests.factories import make_queue, quota
from simcluster.tests.live_helpers import gpu_job


@pytest.fixture(autouse=True)
def _live_settings(settings):
    settings.QM_LIVE_CACHE_SECONDS = 1.0


@pytest.fixture
def preempting_vision(request, catalog, team):
    """vision: 16 h100 GPUs, no cohort; lower priority is preempted within the queue."""
    cluster = request.getfixturevalue("sim")
    request.getfixturevalue("tiers")
    make_queue(
        catalog,
        team,
        quotas=[quota("h100", "16")],
        preemption={"within_cluster_queue": "LowerPriority"},
    )
    assert reconcile(trigger="manual").errors == []
    return cluster


def kubectl_job(
    cluster, namespace: str, name: str, *, queue: str, pods: int, priority: str = ""
) -> None:
    """A Kueue-labelled Job (8 GPUs a pod) created straight through the cluster API."""
    job = gpu_job(name, pods=pods, priority=priority or None)
    job["metadata"]["namespace"] = namespace
    job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = queue
    with cluster.client() as kube:
        kube.create(JOB, job)


def workload_of(cluster, namespace: str, job: str) -> dict | None:
    from apps.jobs.cluster import workload_ref

    with cluster.client() as kube:
        for w in kube.list(workload_ref()):
            meta = w["metadata"]
            owners = meta.get("ownerReferences") or [{}]
            if meta["namespace"] == namespace and owners[0].get("name") == job:
                return w
    return None


def wait_for_state(cluster, namespace: str, job: str, *states: str) -> dict:
    def check():
        w = workload_of(cluster, namespace, job)
        return w if w and compute.workload_state(w) in states else None

    return wait_until(check, timeout=60, interval=0.2)
