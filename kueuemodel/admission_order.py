"""AdmissionFairSharing on a cluster: each LocalQueue's usage, kept as Kueue keeps it.

In a cluster configured with it (``Cluster.admission_fair_sharing``) every LocalQueue has
a usage, sampled and reported in its status, as Kueue does; only the queues of a
ClusterQueue that uses it (``ClusterQueue.admission_fair_sharing``) pay an entry penalty
and are ordered by it. Kueue samples on a timer; the model folds the samples lazily,
whenever it is about to read the usage or to change what the queue holds, so a run has
no timer events and still folds each sample with the usage that held at its time.
"""

from __future__ import annotations

from collections.abc import Callable

from . import admission_usage as afs
from . import model as m
from . import parse
from .state import Cluster


def uses_it(cluster: Cluster, cq: m.ClusterQueue | None) -> bool:
    """Whether ``cq``'s pending workloads are ordered by their LocalQueue's usage."""
    configured = cluster.admission_fair_sharing is not None
    return configured and cq is not None and cq.admission_fair_sharing


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


def hold(cluster: Cluster, wl: m.Workload, cq_name: str, sign: int) -> None:
    """``wl`` starts (+1) or stops (-1) holding quota: fold the samples due before, with
    what its LocalQueue held until now, then count it in or out."""
    if cluster.admission_fair_sharing is None:
        return
    key = f"{wl.namespace}/{wl.queue_name}"
    reported(cluster, key, cq_name)
    held = afs.added(cluster.queue_admitted.get(key, {}), afs.scaled(requests_of(wl), sign))
    cluster.queue_admitted[key] = held


def requests_of(wl: m.Workload) -> afs.Resources:
    total: afs.Resources = {}
    for (_, resource), milli in (wl.admission.total if wl.admission else {}).items():
        total[resource] = total.get(resource, 0) + milli
    return total


def start(cluster: Cluster) -> None:
    """Kueue starts a LocalQueue's figure at its admitted usage when it first sees it (at
    creation, or after a restart: the figure in its status is not read back)."""
    if cluster.admission_fair_sharing is None:
        return
    for key, lq in cluster.local_queues.items():
        if lq.cluster_queue in cluster.cluster_queues:
            current = dict(cluster.queue_admitted.get(key, {}))
            cluster.queue_usage[key] = afs.LocalQueueUsage(current, cluster.now_ms)
            cluster.usage_moved.add(lq.cluster_queue)  # sort what was queued before


def resume_reported(cluster: Cluster, local_queues: list[dict]) -> None:
    """Start each LocalQueue's usage at the figure its status reports, as of its
    ``lastUpdate``: a forecast continues a running Kueue, whose cache holds that figure
    (``start`` is a Kueue starting afresh). Samples due since are folded on first read."""
    if cluster.admission_fair_sharing is None:
        return
    for obj in local_queues:
        reported_usage = parse.parse_reported_usage(obj)
        meta = obj.get("metadata") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"
        lq = cluster.local_queues.get(key)
        if reported_usage is None or lq is None:
            continue
        consumed, last_update_ms = reported_usage
        cluster.queue_usage[key] = afs.LocalQueueUsage(consumed, last_update_ms)
        cluster.usage_moved.add(lq.cluster_queue)


def carry_over(cluster: Cluster, previous: dict[str, afs.LocalQueueUsage]) -> None:
    """Keep the usage of queues a previous run of the same Kueue knew (its cache lives on
    while objects change; only a restart loses it)."""
    for key, usage in previous.items():
        lq = cluster.local_queues.get(key)
        if key in cluster.queue_usage and lq is not None:
            cluster.queue_usage[key] = afs.LocalQueueUsage(
                dict(usage.consumed), usage.last_update_ms
            )
            cluster.usage_moved.add(lq.cluster_queue)


def _usage(cluster: Cluster, lq_key: str) -> afs.LocalQueueUsage:
    usage = cluster.queue_usage.get(lq_key)
    if usage is None:  # not there at start: a workload naming a queue added since
        usage = cluster.queue_usage[lq_key] = afs.LocalQueueUsage({}, cluster.now_ms)
    return usage


def reported(cluster: Cluster, lq_key: str, cq_name: str) -> afs.LocalQueueUsage | None:
    """The LocalQueue's usage as of now, due samples folded (None: not configured)."""
    config = cluster.admission_fair_sharing
    if config is None:
        return None
    usage = _usage(cluster, lq_key)
    current = cluster.queue_admitted.get(lq_key, {})
    if afs.catch_up(usage, current, cluster.now_ms, config):
        cluster.usage_moved.add(cq_name)
    return usage


def fold_due(cluster: Cluster, cq_name: str) -> None:
    """Fold due samples into every LocalQueue of ``cq_name`` (the next ``refresh`` re-sorts)."""
    for key, lq in cluster.local_queues.items():
        if lq.cluster_queue == cq_name:
            reported(cluster, key, cq_name)


def refresh(cluster: Cluster, cq_name: str) -> bool:
    """Fold due samples into every LocalQueue of ``cq_name``; True if its order may have
    moved since the last refresh (a sample, or an admission charged meanwhile)."""
    if not uses_it(cluster, cluster.cluster_queues.get(cq_name)):
        return False
    fold_due(cluster, cq_name)
    moved = cq_name in cluster.usage_moved
    cluster.usage_moved.discard(cq_name)
    return moved


def charge(cluster: Cluster, wl: m.Workload, cq_name: str) -> None:
    """``wl`` was just admitted: a queue ordered by usage pays the entry penalty."""
    if not uses_it(cluster, cluster.cluster_queues.get(cq_name)):
        return
    key = f"{wl.namespace}/{wl.queue_name}"
    current = cluster.queue_admitted.get(key, {})
    config = cluster.admission_fair_sharing
    afs.charge_admission(_usage(cluster, key), current, requests_of(wl), cluster.now_ms, config)
    cluster.usage_moved.add(cq_name)
