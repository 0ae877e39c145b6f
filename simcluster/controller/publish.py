"""Publish what the engine knows: queue status objects, gauges and admission waits.

Status objects are written only when they changed; a condition that keeps
its status keeps its ``lastTransitionTime`` (``meta.SetStatusCondition``), so
a tick that changes nothing writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kueuemodel import (
    STOP_NONE,
    Workload,
    cluster_queue_status,
    cohort_status,
    format_timestamp,
    local_queue_status,
)
from simcluster.server import resources

if TYPE_CHECKING:
    from .controller import Controller

Obj = dict[str, Any]
CLUSTER_QUEUES = resources.by_key(resources.KUEUE_GROUP, "clusterqueues")
LOCAL_QUEUES = resources.by_key(resources.KUEUE_GROUP, "localqueues")
COHORTS = resources.by_key(resources.KUEUE_GROUP, "cohorts")


def on_transition(ctl: Controller, at_ms: int, kind: str, wl: Workload, cq: str) -> None:
    """Kueue observes the admission wait (queued or requeued -> admitted) per admission."""
    if kind == "admit":
        seconds = max(0, at_ms - wl.enqueued_ms) / 1000
        ctl.recorder.observe_wait(at_ms, cq, priority_class_of(wl), seconds)


def priority_class_of(wl: Workload) -> str:
    return ((wl.obj.get("spec") or {}).get("priorityClassRef") or {}).get("name", "")


def gauges(ctl: Controller) -> None:
    """Pending/admitted counts per ClusterQueue, recorded as step functions."""
    cluster, now = ctl.sim.cluster, ctl.clock.now_ms()
    held: dict[str, int] = {}
    for wl in cluster.held.values():
        cq = cluster.cluster_queue_of(wl) or ""
        held[cq] = held.get(cq, 0) + 1
    for name, queue in sorted(cluster.queues.items()):
        parked = queue.parked_count()
        record = ctl.recorder.gauge
        record(
            now,
            "kueue_pending_workloads",
            {"cluster_queue": name, "status": "active"},
            len(queue) - parked,
        )
        inadmissible = parked + held.get(name, 0)
        record(
            now,
            "kueue_pending_workloads",
            {"cluster_queue": name, "status": "inadmissible"},
            inadmissible,
        )
        admitted = len(cluster.reserving.get(name, {}))
        record(now, "kueue_admitted_active_workloads", {"cluster_queue": name}, admitted)
        record(now, "kueue_reserving_active_workloads", {"cluster_queue": name}, admitted)


def flush_pending(ctl: Controller) -> None:
    """Pending reasons change without transitions; publish them once per tick."""
    for key in ctl.waiting_keys():
        ctl.sync(key)


def queues(ctl: Controller) -> None:
    cluster = ctl.sim.cluster
    for name in sorted(cluster.cluster_queues):
        _publish(ctl, CLUSTER_QUEUES, "", name, cluster_queue_status(cluster, name))
    for key in sorted(cluster.local_queues):
        namespace, name = key.split("/", 1)
        status = local_queue_status(cluster, namespace, name)
        status["conditions"] = [_active_lq(ctl, cluster, key)]
        _publish(ctl, LOCAL_QUEUES, namespace, name, status)
    for name in sorted(cluster.cohorts):
        status = cohort_status(cluster, name)
        if status:
            _publish(ctl, COHORTS, "", name, status)


def _active_lq(ctl: Controller, cluster: Any, key: str) -> Obj:
    lq = cluster.local_queues[key]
    ok = lq.cluster_queue in cluster.cluster_queues and lq.stop_policy == STOP_NONE
    reason, message = (
        ("Ready", "Can submit new workloads to localQueue")
        if ok
        else (
            "ClusterQueueDoesNotExist" if lq.stop_policy == STOP_NONE else "Stopped",
            "Can't submit new workloads to clusterQueue",
        )
    )
    return {
        "type": "Active",
        "status": "True" if ok else "False",
        "reason": reason,
        "message": message,
        "lastTransitionTime": format_timestamp(ctl.clock.now_ms()),
    }


def _publish(
    ctl: Controller, rtype: resources.ResourceType, namespace: str, name: str, status: Obj
) -> None:
    key = (rtype.plural, namespace, name)
    previous = ctl.published.get(key)
    if previous is None:
        stored = ctl.store.get(rtype.key, (namespace, name))
        if stored is None:
            return
        previous = stored.get("status") or {}
    status = keep_transition_times(previous, status)
    if status != previous:
        ctl.writer.put_status(rtype, namespace, name, status)
    ctl.published[key] = status


def keep_transition_times(old: Obj, new: Obj) -> Obj:
    """Conditions whose status did not flip keep their old lastTransitionTime."""
    before = {c.get("type"): c for c in old.get("conditions") or ()}
    conditions = []
    for condition in new.get("conditions") or ():
        prior = before.get(condition.get("type"))
        if prior and prior.get("status") == condition.get("status"):
            condition = {**condition, "lastTransitionTime": prior.get("lastTransitionTime")}
        conditions.append(condition)
    return {**new, "conditions": conditions} if "conditions" in new else new
