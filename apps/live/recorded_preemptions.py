"""Preemptions the recorder kept (``apps.reports``): older than the cluster's Events.

Returned in the shape of Kueue's ``Preempted`` Events, so the story's functions treat
the three sources (conditions, Events, history) alike.
"""

from __future__ import annotations

from apps.reports.models import WorkloadRecord, WorkloadTransition
from core.dates import iso_z
from informer.workload import Transition


def _as_event(t: WorkloadTransition) -> dict:
    return {
        "reason": "Preempted",
        "message": t.message,
        # The cluster's form, as the Events it is sorted with spell it.
        "lastTimestamp": iso_z(t.at),
        "involvedObject": {"namespace": t.workload.namespace, "name": t.workload.name},
    }


def recorded_preemptions(uid: str) -> tuple[list[dict], list[dict]]:
    """(preemptions of the workload ``uid``, preemptions it made), oldest first."""
    if not uid:
        return [], []
    preempted = WorkloadTransition.objects.filter(type=Transition.PREEMPTED).select_related(
        "workload"
    )
    of = preempted.filter(workload__uid=uid)
    by = preempted.filter(detail__preemptor_uid=uid)
    return [_as_event(t) for t in of], [_as_event(t) for t in by]


def recorded_workloads(uids: set[str]) -> list[dict]:
    """Workloads the recorder knew, by UID, as minimal Workload dicts (they may be gone)."""
    rows = WorkloadRecord.objects.filter(uid__in=uids).values("uid", "namespace", "name")
    return [{"metadata": row} for row in rows]
