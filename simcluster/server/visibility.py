"""Kueue's visibility API (pending workloads per ClusterQueue / LocalQueue).

The order itself is the admission engine's business: it registers a
``PendingProvider`` returning a ClusterQueue's pending workloads in queue
order, as ``PendingWorkload`` dicts (``metadata``, ``priority``,
``localQueueName``, ``positionInClusterQueue``). Until one is registered the
lists are empty. This module does the HTTP-facing part: 404s, LocalQueue
filtering, positions in the LocalQueue, ``limit``/``offset``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simcluster.server import errors, resources
from simcluster.server.operations import Cluster

Obj = dict[str, Any]
PendingProvider = Callable[[Cluster, str], list[Obj]]
DEFAULT_LIMIT = 1000
MAX_LIMIT = 100_000

CLUSTER_QUEUES = resources.by_key(resources.KUEUE_GROUP, "clusterqueues")
LOCAL_QUEUES = resources.by_key(resources.KUEUE_GROUP, "localqueues")


def no_pending(cluster: Cluster, cluster_queue: str) -> list[Obj]:
    """The default provider: nothing is pending until an engine says otherwise."""
    return []


def summary(items: list[Obj], limit: int, offset: int) -> Obj:
    limit = min(limit or DEFAULT_LIMIT, MAX_LIMIT)
    return {
        "kind": "PendingWorkloadsSummary",
        "apiVersion": f"{resources.VISIBILITY_GROUP}/v1beta2",
        "metadata": {},
        "items": items[offset : offset + limit],
    }


def cluster_queue_pending(
    cluster: Cluster, provider: PendingProvider, name: str, limit: int, offset: int
) -> Obj:
    if cluster.store.get(CLUSTER_QUEUES.key, ("", name)) is None:
        raise errors.not_found(CLUSTER_QUEUES, name)
    return summary(provider(cluster, name), limit, offset)


def local_queue_pending(
    cluster: Cluster, provider: PendingProvider, namespace: str, name: str, limit: int, offset: int
) -> Obj:
    queue = cluster.store.get(LOCAL_QUEUES.key, (namespace, name))
    if queue is None:
        raise errors.not_found(LOCAL_QUEUES, name)
    cluster_queue = (queue.get("spec") or {}).get("clusterQueue", "")
    mine = [
        item
        for item in provider(cluster, cluster_queue)
        if item.get("localQueueName") == name
        and (item.get("metadata") or {}).get("namespace") == namespace
    ]
    ranked = [{**item, "positionInLocalQueue": index} for index, item in enumerate(mine)]
    return summary(ranked, limit, offset)
