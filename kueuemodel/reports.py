"""Read-only views: ClusterQueue / LocalQueue status and pending positions.

These are computed on demand from the live state, like Kueue's status
reconcilers and its visibility API, so callers never see stale counters.
"""

from __future__ import annotations

from typing import Any

from . import admission_order, fairsharing
from . import model as m
from .clock import format_timestamp
from .quantity import format_milli
from .state import Cluster


def _flavor_table(cq: m.ClusterQueue, usage: m.Usage, nominal: m.Usage) -> list[dict[str, Any]]:
    table = []
    for group in cq.resource_groups:
        for flavor in group.flavors:
            resources = []
            for resource in group.covered:
                cell = (flavor.name, resource)
                total = usage.get(cell, 0)
                borrowed = max(0, total - nominal.get(cell, 0))
                resources.append(
                    {
                        "name": resource,
                        "total": format_milli(total, resource),
                        "borrowed": format_milli(borrowed, resource),
                    }
                )
            table.append({"name": flavor.name, "resources": resources})
    return table


def cluster_queue_status(cluster: Cluster, name: str) -> dict[str, Any]:
    """``ClusterQueue.status`` as Kueue would publish it now."""
    cq = cluster.cluster_queues[name]
    node = cluster.cq_nodes[name]
    reserving = list(cluster.reserving.get(name, {}).values())
    usage = node.usage
    pending = len(cluster.queues[name]) + sum(
        1 for wl in cluster.held.values() if cluster.cluster_queue_of(wl) == name
    )
    result: dict[str, Any] = {
        "conditions": [_active_condition(cluster, cq)],
        "flavorsReservation": _flavor_table(cq, usage, node.subtree_quota),
        "flavorsUsage": _flavor_table(cq, usage, node.subtree_quota),
        "pendingWorkloads": pending,
        "reservingWorkloads": len(reserving),
        "admittedWorkloads": len(reserving),
    }
    if cluster.fair_sharing:
        result["fairSharing"] = {"weightedShare": fairsharing.weighted_share(node)}
    return result


def _active_condition(cluster: Cluster, cq: m.ClusterQueue) -> dict[str, Any]:
    if cq.stop_policy != m.STOP_NONE:
        state = ("False", "Stopped", "Can't admit new workloads; clusterQueue is stopped")
    elif cq.name in cluster.inactive:
        reason = "FlavorNotFound" if "flavor" in cluster.inactive[cq.name] else "CohortCycle"
        state = ("False", reason, cluster.inactive[cq.name])
    else:
        state = ("True", "Ready", "Can admit new workloads")
    return {
        "type": "Active",
        "status": state[0],
        "reason": state[1],
        "message": state[2],
        "lastTransitionTime": format_timestamp(cluster.now_ms),
    }


def cohort_status(cluster: Cluster, name: str) -> dict[str, Any]:
    node = cluster.cohort_nodes[name]
    return (
        {"fairSharing": {"weightedShare": fairsharing.weighted_share(node)}}
        if cluster.fair_sharing
        else {}
    )


def local_queue_status(cluster: Cluster, namespace: str, name: str) -> dict[str, Any]:
    """``LocalQueue.status``: counters and usage of this queue's workloads only."""
    lq = cluster.local_queues[f"{namespace}/{name}"]
    mine = [
        wl
        for wl in cluster.workloads.values()
        if wl.namespace == namespace and wl.queue_name == name
    ]
    admitted = [wl for wl in mine if wl.admission is not None and not wl.finished]
    usage: m.Usage = {}
    for wl in admitted:
        for cell, amount in wl.admission.usage().items():
            usage[cell] = usage.get(cell, 0) + amount
    cq = cluster.cluster_queues.get(lq.cluster_queue)
    table = _flavor_table(cq, usage, {}) if cq else []
    for flavor in table:
        for resource in flavor["resources"]:
            resource.pop("borrowed")
    status = {
        "pendingWorkloads": sum(1 for wl in mine if wl.admission is None and not wl.finished),
        "reservingWorkloads": len(admitted),
        "admittedWorkloads": len(admitted),
        "flavorsReservation": table,
        "flavorsUsage": table,
    }
    fair = _admission_fair_sharing_status(cluster, f"{namespace}/{name}", lq.cluster_queue)
    if fair is not None:
        status["fairSharing"] = {"weightedShare": 0, "admissionFairSharingStatus": fair}
    return status


def _admission_fair_sharing_status(
    cluster: Cluster, lq_key: str, cq_name: str
) -> dict[str, Any] | None:
    """What Kueue writes on every LocalQueue when configured with AdmissionFairSharing."""
    usage = admission_order.reported(cluster, lq_key, cq_name)
    if usage is None or cq_name not in cluster.cluster_queues:
        return None
    consumed = {name: format_milli(milli, name) for name, milli in sorted(usage.consumed.items())}
    return {"consumedResources": consumed, "lastUpdate": format_timestamp(usage.last_update_ms)}


def pending_workloads(
    cluster: Cluster, cluster_queue: str, local_queue: tuple[str, str] | None = None
) -> dict[str, Any]:
    """Visibility API ``PendingWorkloadsSummary`` for a ClusterQueue or one LocalQueue.

    Positions are 0-based; for a LocalQueue, ``positionInClusterQueue`` is still
    the ClusterQueue-wide index, as in Kueue.
    """
    items, per_lq = [], {}
    if admission_order.uses_it(cluster, cluster.cluster_queues.get(cluster_queue)):
        admission_order.fold_due(cluster, cluster_queue)  # the order as of now
    for index, wl in enumerate(cluster.queues[cluster_queue].members()):
        lq_position = per_lq.get(wl.queue_name + "@" + wl.namespace, 0)
        per_lq[wl.queue_name + "@" + wl.namespace] = lq_position + 1
        if local_queue and (wl.namespace, wl.queue_name) != local_queue:
            continue
        items.append(_pending_item(wl, index, lq_position))
    return {
        "kind": "PendingWorkloadsSummary",
        "apiVersion": "visibility.kueue.x-k8s.io/v1beta2",
        "metadata": {},
        "items": items,
    }


def _pending_item(wl: m.Workload, cq_position: int, lq_position: int) -> dict[str, Any]:
    meta = wl.obj.get("metadata") or {}
    return {
        "metadata": {
            "name": wl.name,
            "namespace": wl.namespace,
            "creationTimestamp": meta.get("creationTimestamp"),
            "ownerReferences": meta.get("ownerReferences") or [],
        },
        "priority": wl.priority,
        "localQueueName": wl.queue_name,
        "positionInClusterQueue": cq_position,
        "positionInLocalQueue": lq_position,
    }
