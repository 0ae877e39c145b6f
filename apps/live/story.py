"""One Workload's page: conditions, events, admission and its preemption story, pure.

Kueue names a preemptor only by UID, in the victim's ``Preempted`` condition and in the
``Preempted`` Event it records on the victim ("Preempted to accommodate a workload
(UID: …)"). The victim's story comes from its own condition and Events; the preemptor's
list of victims from every other Workload's condition and every ``Preempted`` Event
naming its UID. A condition keeps only the latest preemption, Events keep earlier ones
while the API server keeps them (an hour by default).
"""

from __future__ import annotations

from apps.live.compute import (
    cluster_queue_of,
    flavors_by_pod_set,
    local_queue_index,
    workload_state,
)
from informer.objects import condition, preemptor_uid
from informer.objects import meta as _meta
from informer.objects import namespace_name as _key
from informer.objects import owner as _owner
from informer.workload import last_preemption


def conditions(workload: dict) -> list[dict]:
    """Every condition, oldest transition first."""
    rows = [
        {
            "type": c.get("type", ""),
            "status": c.get("status", ""),
            "reason": c.get("reason", ""),
            "message": c.get("message", ""),
            "at": c.get("lastTransitionTime", ""),
        }
        for c in (workload.get("status") or {}).get("conditions") or ()
    ]
    return sorted(rows, key=lambda r: (r["at"], r["type"]))


def event_rows(events: list[dict]) -> list[dict]:
    """Events about the Workload, oldest first."""
    rows = [
        {
            "type": e.get("type", ""),
            "reason": e.get("reason", ""),
            "message": e.get("message", ""),
            "at": e.get("lastTimestamp") or e.get("eventTime") or e.get("firstTimestamp") or "",
            "count": e.get("count") or 1,
        }
        for e in events
    ]
    return sorted(rows, key=lambda r: r["at"])


def named_preemptors(workload: dict, events: list[dict]) -> set[str]:
    """UIDs of the preemptors this workload's condition and Events name."""
    cond = condition(workload, "Preempted") or {}
    messages = [cond.get("message") or ""] + [e.get("message") or "" for e in events]
    return {preemptor_uid(m) for m in messages} - {""}


def _who(uid: str, by_uid: dict[str, dict], namespaces: set[str] | None) -> dict:
    """A workload named by UID, as much of it as the viewer may see."""
    other = by_uid.get(uid)
    if other is None:
        return {"uid": uid, "namespace": "", "name": "", "known": False, "visible": False}
    namespace, name = _key(other)
    visible = namespaces is None or namespace in namespaces
    return {
        "uid": uid,
        "namespace": namespace,
        "name": name if visible else "",
        "known": True,
        "visible": visible,
    }


def preempted_by(
    workload: dict, events: list[dict], by_uid: dict[str, dict], namespaces: set[str] | None
) -> list[dict]:
    """When and by whom this workload was preempted, newest first, one row per preemption."""
    seen: dict[tuple[str, str], dict] = {}
    found = []
    if latest := last_preemption(workload):
        found.append((latest.stamp, latest.reason, latest.message))
    for event in events:
        if event.get("reason") == "Preempted":
            at = event.get("lastTimestamp") or event.get("firstTimestamp")
            found.append((at, event.get("reason", ""), event.get("message") or ""))
    for at, reason, message in found:
        uid = preemptor_uid(message)
        key = (uid, (at or "")[:19])
        if key in seen:
            continue
        seen[key] = {
            "at": at or "",
            "reason": reason,
            "message": message,
            "preemptor": _who(uid, by_uid, namespaces),
        }
    return sorted(seen.values(), key=lambda r: r["at"], reverse=True)


def victims_of(
    uid: str,
    workloads: list[dict],
    preempted_events: list[dict],
    namespaces: set[str] | None,
) -> list[dict]:
    """Workloads this one preempted, from their conditions and ``Preempted`` Events."""
    if not uid:
        return []
    by_key = {_key(w): w for w in workloads}
    found: dict[tuple[str, str, str], dict] = {}
    for w in workloads:
        latest = last_preemption(w)
        if latest is not None and latest.preemptor_uid == uid:
            at = latest.stamp
            found[(*_key(w), at[:19])] = _victim(_key(w), at, by_key, namespaces)
    for event in preempted_events:
        if preemptor_uid(event.get("message") or "") != uid:
            continue
        involved = event.get("involvedObject") or {}
        key = (involved.get("namespace", ""), involved.get("name", ""))
        at = event.get("lastTimestamp") or event.get("firstTimestamp") or ""
        found.setdefault((*key, at[:19]), _victim(key, at, by_key, namespaces))
    return sorted(found.values(), key=lambda r: r["at"], reverse=True)


def _victim(key: tuple[str, str], at: str, by_key: dict, namespaces: set[str] | None) -> dict:
    visible = namespaces is None or key[0] in namespaces
    return {
        "namespace": key[0],
        "name": key[1] if visible else "",
        "at": at,
        "visible": visible,
        "exists": key in by_key,
    }


def workload_page(
    workload: dict,
    *,
    events: list[dict],
    workloads: list[dict],
    local_queues: list[dict],
    preempted_events: list[dict],
    namespaces: set[str] | None,
    known: list[dict] = (),
) -> dict:
    """Everything the workload page and its API show.

    ``known`` are workloads that may be gone from the cluster (recorded history), used
    only to name a preemptor.
    """
    meta, spec = _meta(workload), workload.get("spec") or {}
    by_uid = {_meta(w).get("uid", ""): w for w in (*known, *workloads)}
    return {
        "namespace": meta.get("namespace", ""),
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "created": meta.get("creationTimestamp", ""),
        "owner": dict(zip(("kind", "name"), _owner(workload), strict=True)),
        "local_queue": spec.get("queueName", ""),
        "cluster_queue": cluster_queue_of(workload, local_queue_index(local_queues)),
        "priority": spec.get("priority") or 0,
        "state": workload_state(workload),
        "conditions": conditions(workload),
        "events": event_rows(events),
        "admission": flavors_by_pod_set(workload),
        "preempted_by": preempted_by(workload, events, by_uid, namespaces),
        "preempted": victims_of(meta.get("uid", ""), workloads, preempted_events, namespaces),
    }
