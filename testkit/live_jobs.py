"""Jobs made as kubectl would, and waiting for their Workload to reach a live-view state."""

from __future__ import annotations

from apps.jobs.cluster import JOB
from apps.live import compute
from testkit.live_cluster import gpu_job
from testkit.waiting import wait_until


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
