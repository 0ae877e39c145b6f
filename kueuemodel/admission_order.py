"""AdmissionFairSharing on a cluster: each LocalQueue's usage, kept as Kueue keeps it.

Only LocalQueues of a ClusterQueue that uses it (``ClusterQueue.admission_fair_sharing``)
in a cluster configured with it (``Cluster.admission_fair_sharing``) have a usage. Kueue
samples on a timer; the model folds the samples lazily, whenever it is about to read the
usage or to change what the queue holds, so a run has no timer events and still folds
each sample with the usage that held at its time.
"""

from __future__ import annotations

from collections.abc import Callable

from . import admission_usage as afs
from . import model as m
from .state import Cluster


def uses_it(cluster: Cluster, cq: m.ClusterQueue | None) -> bool:
    return (
        cluster.admission_fair_sharing is not None and cq is not None and cq.admission_fair_sharing
    )


def order_key(cluster: Cluster) -> Callable[[m.Workload], float]:
    """The pending queue's first sort key: the workload's LocalQueue's weighted usage."""

    def usage_of(wl: m.Workload) -> float:
        key = f"{wl.namespace}/{wl.queue_name}"
        usage = cluster.queue_usage.get(key)
        lq = cluster.local_queues.get(key)
        weight = lq.weight if lq else 1.0
        consumed = usage.consumed if usage else {}
        return afs.weighted(consumed, cluster.admission_fair_sharing.weights, weight)

    return usage_of


def admitted_requests(cluster: Cluster, lq_key: str, cq_name: str) -> afs.Resources:
    """What the LocalQueue's admitted workloads request, summed over flavors."""
    total: afs.Resources = {}
    for wl in cluster.reserving.get(cq_name, {}).values():
        if f"{wl.namespace}/{wl.queue_name}" == lq_key:
            total = afs.added(total, requests_of(wl))
    return total


def requests_of(wl: m.Workload) -> afs.Resources:
    total: afs.Resources = {}
    for (_, resource), milli in (wl.admission.total if wl.admission else {}).items():
        total[resource] = total.get(resource, 0) + milli
    return total


def start(cluster: Cluster) -> None:
    """Kueue starts a LocalQueue's figure at its admitted usage when it first sees it (at
    creation, or after a restart: the figure in its status is not read back)."""
    for key, lq in cluster.local_queues.items():
        if uses_it(cluster, cluster.cluster_queues.get(lq.cluster_queue)):
            current = admitted_requests(cluster, key, lq.cluster_queue)
            cluster.queue_usage[key] = afs.LocalQueueUsage(current, cluster.now_ms)
            cluster.usage_moved.add(lq.cluster_queue)  # sort what was queued before


def _usage(cluster: Cluster, lq_key: str) -> afs.LocalQueueUsage:
    usage = cluster.queue_usage.get(lq_key)
    if usage is None:  # not there at start: a workload naming a queue added since
        usage = cluster.queue_usage[lq_key] = afs.LocalQueueUsage({}, cluster.now_ms)
    return usage


def refresh(cluster: Cluster, cq_name: str) -> bool:
    """Fold due samples into every LocalQueue of ``cq_name``; True if its order may have
    moved since the last refresh (a sample, or an admission charged meanwhile)."""
    config = cluster.admission_fair_sharing
    if not uses_it(cluster, cluster.cluster_queues.get(cq_name)):
        return False
    for key, lq in cluster.local_queues.items():
        if lq.cluster_queue == cq_name:
            current = admitted_requests(cluster, key, cq_name)
            if afs.catch_up(_usage(cluster, key), current, cluster.now_ms, config):
                cluster.usage_moved.add(cq_name)
    moved = cq_name in cluster.usage_moved
    cluster.usage_moved.discard(cq_name)
    return moved


def before_change(cluster: Cluster, wl: m.Workload, cq_name: str) -> None:
    """Fold the samples due before ``wl`` starts or stops holding quota."""
    if uses_it(cluster, cluster.cluster_queues.get(cq_name)):
        key = f"{wl.namespace}/{wl.queue_name}"
        current = admitted_requests(cluster, key, cq_name)
        afs.catch_up(_usage(cluster, key), current, cluster.now_ms, cluster.admission_fair_sharing)


def charge(cluster: Cluster, wl: m.Workload, cq_name: str) -> None:
    """``wl`` was just admitted: its LocalQueue pays the entry penalty."""
    if not uses_it(cluster, cluster.cluster_queues.get(cq_name)):
        return
    key = f"{wl.namespace}/{wl.queue_name}"
    current = admitted_requests(cluster, key, cq_name)
    usage = _usage(cluster, key)
    config = cluster.admission_fair_sharing
    afs.charge_admission(usage, current, requests_of(wl), cluster.now_ms, config)
    cluster.usage_moved.add(cq_name)
