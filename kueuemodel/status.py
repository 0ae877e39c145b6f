"""Write Workload status the way Kueue patches it, and record events.

Conditions follow ``meta.SetStatusCondition``: the transition time moves only
when the status flips, so a workload that stays pending keeps the time it
first became pending while its reason and message are refreshed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import model as m
from .clock import format_timestamp
from .quantity import format_milli

Text = str | Callable[[], str]
"""A message, or a function that makes it (see ``StatusWriter.pending``)."""

QUOTA_RESERVED = "QuotaReserved"
ADMITTED = "Admitted"
EVICTED = "Evicted"
PREEMPTED = "Preempted"
REQUEUED = "Requeued"
FINISHED = "Finished"
PODS_READY = "PodsReady"


def set_condition(
    obj: dict[str, Any], kind: str, status: str, reason: str, message: str, now_ms: int
) -> None:
    conditions = obj.setdefault("status", {}).setdefault("conditions", [])
    for condition in conditions:
        if condition["type"] == kind:
            if condition["status"] != status:
                condition["status"] = status
                condition["lastTransitionTime"] = format_timestamp(now_ms)
            condition["reason"], condition["message"] = reason, message
            return
    conditions.append(
        {
            "type": kind,
            "status": status,
            "reason": reason,
            "message": message,
            "lastTransitionTime": format_timestamp(now_ms),
            "observedGeneration": (obj.get("metadata") or {}).get("generation", 1),
        }
    )


def writable_status(status: dict[str, Any]) -> dict[str, Any]:
    """A copy of a Workload's ``status`` the writers below may write into: what they
    change in place (each condition, each eviction count) is copied; what they only
    replace or remove (the admission, the execution time) is shared."""
    copied = dict(status)
    if status.get("conditions") is not None:
        copied["conditions"] = [dict(condition) for condition in status["conditions"]]
    stats = status.get("schedulingStats")
    if stats and stats.get("evictions") is not None:
        copied["schedulingStats"] = {**stats, "evictions": [dict(e) for e in stats["evictions"]]}
    return copied


def get_condition(obj: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for condition in (obj.get("status") or {}).get("conditions") or ():
        if condition["type"] == kind:
            return condition
    return None


def mark_pending(wl: m.Workload, reason: str, message: str, now_ms: int) -> None:
    conditions = (wl.obj.get("status") or {}).get("conditions") or ()
    for condition in conditions:
        if condition["type"] == QUOTA_RESERVED:
            if (
                condition["status"] == "False"
                and condition["reason"] == reason
                and condition["message"] == message
            ):
                return  # unchanged: skip the write, pending heads are re-checked constantly
            break
    set_condition(wl.obj, QUOTA_RESERVED, "False", reason, message, now_ms)


def admission_dict(admission: m.Admission) -> dict[str, Any]:
    return {
        "clusterQueue": admission.cluster_queue,
        "podSetAssignments": [
            {
                "name": psa.name,
                "flavors": dict(psa.flavors),
                "resourceUsage": {
                    res: format_milli(amount, res) for (_, res), amount in psa.usage.items()
                },
                "count": psa.count,
            }
            for psa in admission.pod_sets
        ],
    }


def mark_admitted(wl: m.Workload, admission: m.Admission, now_ms: int) -> None:
    obj = wl.obj
    obj.setdefault("status", {})["admission"] = admission_dict(admission)
    message = f"Quota reserved in ClusterQueue {admission.cluster_queue}"
    set_condition(obj, QUOTA_RESERVED, "True", QUOTA_RESERVED, message, now_ms)
    set_condition(obj, ADMITTED, "True", ADMITTED, "The workload is admitted", now_ms)
    for kind in (EVICTED, PREEMPTED):
        previous = get_condition(obj, kind)
        if previous and previous["status"] == "True":
            note = f"Previously: {previous['message']}"
            set_condition(obj, kind, "False", QUOTA_RESERVED, note, now_ms)


def mark_evicted(
    wl: m.Workload, reason: str, message: str, now_ms: int, preempted_reason: str | None
) -> None:
    """Evicted (and Preempted): the reservation stays until ``mark_released``.

    Kueue keeps QuotaReserved and Admitted True while the evicted job's pods
    stop; its integration releases the quota once they are gone.
    """
    obj = wl.obj
    set_condition(obj, EVICTED, "True", reason, message, now_ms)
    if preempted_reason:
        set_condition(obj, PREEMPTED, "True", preempted_reason, message, now_ms)
    status = obj["status"]
    _count_eviction(status, reason)
    if wl.reserved_ms is not None:
        past = status.get("accumulatedPastExecutionTimeSeconds", 0)
        status["accumulatedPastExecutionTimeSeconds"] = past + (now_ms - wl.reserved_ms) // 1000


def mark_released(wl: m.Workload, now_ms: int) -> None:
    """An evicted workload's pods are gone: quota released, workload requeued."""
    obj = wl.obj
    evicted = get_condition(obj, EVICTED) or {"reason": "Evicted", "message": ""}
    set_condition(obj, QUOTA_RESERVED, "False", "PendingEvaluation", evicted["message"], now_ms)
    set_condition(
        obj, ADMITTED, "False", "NoReservation", "The workload has no reservation", now_ms
    )
    obj["status"].pop("admission", None)  # omitempty: a released reservation disappears
    mark_requeued(wl, evicted["reason"], now_ms)


def _count_eviction(status: dict[str, Any], reason: str) -> None:
    evictions = status.setdefault("schedulingStats", {}).setdefault("evictions", [])
    for entry in evictions:
        if entry["reason"] == reason:
            entry["count"] += 1
            return
    evictions.append({"reason": reason, "underlyingCause": "", "count": 1})


def mark_requeued(wl: m.Workload, reason: str, now_ms: int) -> None:
    set_condition(wl.obj, REQUEUED, "True", reason, "The workload was requeued", now_ms)


def mark_finished(wl: m.Workload, now_ms: int) -> None:
    set_condition(wl.obj, FINISHED, "True", "Succeeded", "Job finished successfully", now_ms)


def mark_placement(wl: m.Workload, problem: str | None, now_ms: int) -> None:
    """Pods that the simulated kube-scheduler could not bind stay unready."""
    if problem:
        set_condition(
            wl.obj, PODS_READY, "False", "WaitForStart", f"0/1 pods scheduled: {problem}", now_ms
        )
    elif get_condition(wl.obj, PODS_READY):
        set_condition(wl.obj, PODS_READY, "True", "Started", "All pods reached readiness", now_ms)


def mark_topology(wl: m.Workload, assignments: dict[str, dict]) -> None:
    """Each TAS pod set's ``topologyAssignment`` (pod set name → assignment), as Kueue
    writes it into the admission once it has chosen the nodes."""
    admission = (wl.obj.get("status") or {}).get("admission") or {}
    for psa in admission.get("podSetAssignments") or ():
        if psa.get("name") in assignments:
            psa["topologyAssignment"] = assignments[psa["name"]]


class StatusWriter:
    """Writes what the scheduler decides into each Workload's status (``wl.obj``)."""

    writes = True
    """False for a writer that drops everything, so callers can skip preparing writes."""

    def pending(self, wl: m.Workload, reason: str, message: Text, now_ms: int) -> None:
        """``message`` may be deferred (a function that makes it): only a writer makes it."""
        mark_pending(wl, reason, message() if callable(message) else message, now_ms)

    def admitted(self, wl: m.Workload, admission: m.Admission, now_ms: int) -> None:
        mark_admitted(wl, admission, now_ms)

    def evicted(
        self,
        wl: m.Workload,
        reason: str,
        message: str,
        now_ms: int,
        preempted_reason: str | None,
    ) -> None:
        mark_evicted(wl, reason, message, now_ms, preempted_reason)

    def released(self, wl: m.Workload, now_ms: int) -> None:
        mark_released(wl, now_ms)

    def finished(self, wl: m.Workload, now_ms: int) -> None:
        mark_finished(wl, now_ms)

    def placement(self, wl: m.Workload, problem: str | None, now_ms: int) -> None:
        mark_placement(wl, problem, now_ms)

    def topology(self, wl: m.Workload, assignments: dict[str, dict]) -> None:
        mark_topology(wl, assignments)


class SilentStatusWriter(StatusWriter):
    """Writes nothing: for runs that read only the transition log (what-if replays,
    ETAs), where status writes would be a fifth of the work."""

    def _write_nothing(self, *_args: object) -> None:
        pass

    writes = False
    pending = admitted = evicted = released = finished = placement = topology = _write_nothing


def event(
    wl: m.Workload, reason: str, message: str, now_ms: int, kind: str = "Normal"
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "type": kind,
        "reason": reason,
        "message": message,
        "involvedObject": {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "namespace": wl.namespace,
            "name": wl.name,
            "uid": wl.uid,
        },
        "firstTimestamp": format_timestamp(now_ms),
        "lastTimestamp": format_timestamp(now_ms),
        "count": 1,
    }
