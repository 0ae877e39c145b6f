"""The live queue view on a big cluster: 60 ClusterQueues, 2,400 Workloads (default).

Starts the simulated cluster as a bare API server (no controller) and writes the objects
with their Kueue status by hand: in each cohort of 10 queues half the workloads hold quota
and half wait. Then measures, with the shared cache on Redis:
  1. a cold read of the cluster (``fetch.read_cluster``: the list calls);
  2. the pure computation of every queue row (``compute.queue_rows`` …);
  3. an admin's whole answer (``read.live_queues``) from the cached snapshot: first in a
     process (unpickle and compute), then the following ones (both kept in the process).

``.venv/bin/python bench/live_view.py [--queues 60] [--workloads 2400] [--repeat 15]``
Needs Redis (``REDIS_URL``; cache keys are per cluster, nothing is flushed). No database
is touched.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _status(kube, ref, obj: dict, status: dict) -> None:
    meta = obj["metadata"]
    path = ref.path(meta.get("namespace", ""), meta["name"]) + "/status"
    kube._call(
        "PATCH", ref, "patch", path, body={"status": status},
        content_type="application/merge-patch+json",
    )  # fmt: skip


def _populate(kube, queues: int, workloads: int) -> None:
    from apps.jobs.cluster import cluster_queue_ref, workload_ref
    from apps.live.fetch import local_queue_ref
    from core.kube import ResourceRef

    namespace = ResourceRef("", "v1", "namespaces", "Namespace", False)
    per_queue = workloads // queues
    gpu = "nvidia.com/gpu"
    for q in range(queues):
        name, ns = f"team-{q:03d}", f"ns-{q:03d}"
        kube.create(namespace, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        flavors = [{"name": f, "resources": [{"name": gpu, "nominalQuota": "16"}]}
                   for f in ("h100", "a100")]  # fmt: skip
        cq = {
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
            "metadata": {"name": name},
            "spec": {"cohortName": f"cohort-{q // 10}", "namespaceSelector": {},
                     "resourceGroups": [{"coveredResources": [gpu], "flavors": flavors}]},
        }  # fmt: skip
        kube.create(cluster_queue_ref(), cq)
        used = "24" if q % 2 else "8"
        borrowed = "8" if q % 2 else "0"
        usage = [
            {"name": "h100", "resources": [{"name": gpu, "total": used, "borrowed": borrowed}]}
        ]
        _status(kube, cluster_queue_ref(), cq, {
            "flavorsReservation": usage, "flavorsUsage": usage,
            "pendingWorkloads": per_queue // 2, "reservingWorkloads": per_queue - per_queue // 2,
            "admittedWorkloads": per_queue - per_queue // 2,
        })  # fmt: skip
        lq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
              "metadata": {"name": name, "namespace": ns}, "spec": {"clusterQueue": name}}  # fmt: skip
        kube.create(local_queue_ref(), lq)
        for i in range(per_queue):
            _workload(kube, workload_ref(), ns, name, i, admitted=i % 2 == 0)


def _workload(kube, ref, ns: str, queue: str, i: int, *, admitted: bool) -> None:
    container = {"name": "main", "image": "x",
                 "resources": {"requests": {"nvidia.com/gpu": "1"}}}  # fmt: skip
    w = {
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": f"job-{i:05d}", "namespace": ns},
        "spec": {"queueName": queue, "priority": i % 3,
                 "podSets": [{"name": "main", "count": 1,
                              "template": {"spec": {"containers": [container]}}}]},
    }  # fmt: skip
    kube.create(ref, w)
    at = "2026-01-01T00:00:00Z"
    if admitted:
        conditions = [{"type": t, "status": "True", "reason": t, "message": "",
                       "lastTransitionTime": at} for t in ("QuotaReserved", "Admitted")]  # fmt: skip
        admission = {"clusterQueue": queue, "podSetAssignments": [
            {"name": "main", "count": 1, "flavors": {"nvidia.com/gpu": "h100"}}]}  # fmt: skip
        _status(kube, ref, w, {"conditions": conditions, "admission": admission})
    else:
        conditions = [{"type": "QuotaReserved", "status": "False", "reason": "Pending",
                       "message": "couldn't assign flavors", "lastTransitionTime": at}]  # fmt: skip
        _status(kube, ref, w, {"conditions": conditions})


def _median_ms(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queues", type=int, default=60)
    parser.add_argument("--workloads", type=int, default=2400)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="qm-bench-live-"))
    os.environ.update(
        DATABASE_URL="",
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/14"),
        QM_DATA_DIR=str(workdir / "data"),
        DJANGO_SETTINGS_MODULE="portal.settings",
        QM_LIVE_CACHE_SECONDS="600",
    )
    from testkit.sim_cluster import SimCluster

    cluster = SimCluster(workdir, controller=False).start()  # a bare API server
    os.environ["KUBECONFIG"] = str(cluster.kubeconfig)
    try:
        _run(args)
    finally:
        cluster.stop()


def _run(args) -> None:
    import django

    django.setup()
    from apps.accounts.models import User
    from apps.live import compute, fetch, read
    from core.kube import KubeClient

    with KubeClient() as kube:
        kube.enforce_rbac = False  # the bench plays Kueue and its users
        _populate(kube, args.queues, args.workloads)
    with KubeClient() as kube:
        cold_ms, snap = _median_ms(lambda: fetch.read_cluster(kube), args.repeat)

    def rows():
        found = compute.queue_rows(
            snap.cluster_queues, snap.local_queues, snap.workloads, snap.positions
        )
        return compute.with_local_namespaces(found, snap.local_queues)

    compute_ms, computed = _median_ms(rows, args.repeat)
    admin = User(username="bench", is_platform_admin=True)
    fetch.snapshot()  # fill the shared cache

    def first_in_a_process():  # another web process: nothing unpickled or computed yet
        fetch._in_process.clear()
        read._computed.clear()
        return read.live_queues(admin)

    first_ms, _ = _median_ms(first_in_a_process, args.repeat)
    cached_ms, answer = _median_ms(lambda: read.live_queues(admin), args.repeat)
    listed = sum(len(q["admitted"]) + len(q["waiting"]) for q in answer["queues"])
    assert len(computed) == args.queues and listed == len(snap.workloads)
    print(f"{args.queues} ClusterQueues, {len(snap.workloads)} Workloads, median of {args.repeat}")
    print(f"cold read of the cluster: {cold_ms:.0f} ms")
    print(f"computing every queue row: {compute_ms:.0f} ms")
    print(f"an admin's answer, first in a process (unpickle + compute): {first_ms:.0f} ms")
    print(f"an admin's answer, next ones in that process: {cached_ms:.1f} ms")
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
