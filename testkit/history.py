"""Record Workloads with a given life through the recorder's own service (no cluster)."""

from __future__ import annotations

from datetime import UTC, datetime

from apps.reports import services


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def life(
    name: str,
    namespace: str,
    *,
    created: float,
    admitted: float | None,
    ended: float | None,
    gpus: int = 1,
    flavor: str = "h100",
    resource: str = "nvidia.com/gpu",
    owner_kind: str = "Job",
    queue: str | None = None,
) -> list[tuple[str, dict]]:
    """Watch events of one Workload: created → admitted → finished (each step optional)."""
    queue = queue or namespace.removeprefix("team-")
    container = {"name": "main", "image": "x", "resources": {"requests": {resource: str(gpus)}}}
    meta = {
        "name": name,
        "namespace": namespace,
        "uid": f"uid-{name}",
        "creationTimestamp": iso(created),
        "ownerReferences": [{"kind": owner_kind, "name": name, "uid": f"o-{name}"}],
    }
    obj = {"metadata": meta, "spec": {"queueName": queue, "podSets": [
        {"name": "main", "count": 1, "template": {"spec": {"containers": [container]}}}]},
        "status": {"conditions": []}}  # fmt: skip
    events = [("ADDED", _copy(obj))]
    if admitted is not None:
        obj["status"]["admission"] = {
            "clusterQueue": queue,
            "podSetAssignments": [
                {
                    "name": "main",
                    "flavors": {resource: flavor},
                    "resourceUsage": {resource: str(gpus)},
                }
            ],
        }
        obj["status"]["conditions"] = [
            _cond("QuotaReserved", admitted),
            _cond("Admitted", admitted),
        ]
        events.append(("MODIFIED", _copy(obj)))  # fmt: skip
    if ended is not None:
        obj["status"]["conditions"].append(_cond("Finished", ended, "Succeeded"))
        events.append(("MODIFIED", _copy(obj)))
    return events


def _cond(type_: str, at: float, reason: str = "") -> dict:
    return {
        "type": type_,
        "status": "True",
        "reason": reason or type_,
        "lastTransitionTime": iso(at),
    }


def _copy(obj: dict) -> dict:
    import copy

    return copy.deepcopy(obj)


def record(*lives: list[tuple[str, dict]]) -> None:
    for events in lives:
        services.record_workload_events(events)
