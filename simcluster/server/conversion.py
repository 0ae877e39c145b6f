"""Conversion between the served Kueue versions and the storage version (v1beta2).

One stored object answers both ``v1beta1`` and ``v1beta2`` requests, like the
conversion webhook Kueue installs. Only the differences the portal can meet are
converted (ClusterQueue cohort/admissionChecks/fungibility, LocalQueue
flavorUsage, Workload priority class reference, a pod set's topologyAssignment:
v1beta2 ``slices``, v1beta1 ``domains``); every other field has the same
name in both versions.
"""

from __future__ import annotations

import copy
from typing import Any

from simcluster.server.resources import ResourceType

Obj = dict[str, Any]

_FUNGIBILITY_V1BETA1_ALIASES = {"Borrow": "MayStopSearch", "Preempt": "MayStopSearch"}
_PRIORITY_SOURCES = {
    "kueue.x-k8s.io/workloadpriorityclass": ("kueue.x-k8s.io", "WorkloadPriorityClass"),
    "scheduling.k8s.io/priorityclass": ("scheduling.k8s.io", "PriorityClass"),
}


def _rename(section: Obj | None, old: str, new: str) -> None:
    if isinstance(section, dict) and old in section:
        section[new] = section.pop(old)


def _cq_spec_up(spec: Obj) -> None:
    _rename(spec, "cohort", "cohortName")
    names = spec.pop("admissionChecks", None)
    if names:
        checks = [{"name": name} for name in names]
        spec.setdefault("admissionChecksStrategy", {"admissionChecks": checks})
    fungibility = spec.get("flavorFungibility")
    if isinstance(fungibility, dict):
        for field in ("whenCanBorrow", "whenCanPreempt"):
            value = fungibility.get(field)
            fungibility[field] = _FUNGIBILITY_V1BETA1_ALIASES.get(value, value)


def _cq_spec_down(spec: Obj) -> None:
    _rename(spec, "cohortName", "cohort")


def _workload_spec_up(spec: Obj) -> None:
    name = spec.pop("priorityClassName", None)
    source = spec.pop("priorityClassSource", "")
    if name and source in _PRIORITY_SOURCES:
        group, kind = _PRIORITY_SOURCES[source]
        spec["priorityClassRef"] = {"group": group, "kind": kind, "name": name}


def _workload_spec_down(spec: Obj) -> None:
    ref = spec.pop("priorityClassRef", None)
    spec.pop("preemptionGates", None)
    if isinstance(ref, dict):
        spec["priorityClassName"] = ref.get("name")
        spec["priorityClassSource"] = f"{ref.get('group')}/{str(ref.get('kind')).lower()}"
    else:
        spec["priorityClassSource"] = ""


def _topology_down(assignment: Obj) -> None:
    """v1beta2 ``slices`` (compressed) → v1beta1 ``domains[{values, count}]``."""
    domains = []
    for piece in assignment.pop("slices", None) or ():
        for i in range(int(piece.get("domainCount") or 0)):
            counts = piece.get("podCounts") or {}
            count = counts["universal"] if "universal" in counts else counts["individual"][i]
            values = [_level_value(v, i) for v in piece.get("valuesPerLevel") or ()]
            domains.append({"values": values, "count": count})
    assignment["domains"] = domains


def _level_value(value: Obj, i: int) -> str:
    if "universal" in value:
        return value["universal"]
    one = value.get("individual") or {}
    return f"{one.get('prefix', '')}{one['roots'][i]}{one.get('suffix', '')}"


def _topology_up(assignment: Obj) -> None:
    """v1beta1 ``domains`` → v1beta2 ``slices``, one slice per domain."""
    assignment["slices"] = [
        {
            "domainCount": 1,
            "podCounts": {"universal": d.get("count", 1)},
            "valuesPerLevel": [{"universal": v} for v in d.get("values") or ()],
        }
        for d in assignment.pop("domains", None) or ()
    ]


def _workload_status(status: Obj | None, upward: bool) -> None:
    pair = ("accumulatedPastExexcutionTimeSeconds", "accumulatedPastExecutionTimeSeconds")
    _rename(status, *(pair if upward else pair[::-1]))
    admission = (status or {}).get("admission") if isinstance(status, dict) else None
    for psa in (admission or {}).get("podSetAssignments") or ():
        if isinstance(psa.get("topologyAssignment"), dict):
            (_topology_up if upward else _topology_down)(psa["topologyAssignment"])


def _convert(rtype: ResourceType, obj: Obj, upward: bool) -> None:
    spec = obj.get("spec")
    status = obj.get("status")
    if rtype.kind == "ClusterQueue" and isinstance(spec, dict):
        (_cq_spec_up if upward else _cq_spec_down)(spec)
    elif rtype.kind == "LocalQueue":
        pair = ("flavorUsage", "flavorsUsage") if upward else ("flavorsUsage", "flavorUsage")
        _rename(status, *pair)
    elif rtype.kind == "Workload" and isinstance(spec, dict):
        (_workload_spec_up if upward else _workload_spec_down)(spec)
        _workload_status(status, upward)


def to_storage(rtype: ResourceType, version: str, obj: Obj) -> Obj:
    """A copy of ``obj`` (sent as ``version``) in the storage version."""
    out = copy.deepcopy(obj)
    if version != rtype.storage_version:
        _convert(rtype, out, upward=True)
    if "apiVersion" in out or rtype.group:
        out["apiVersion"] = rtype.api_version()
    return out


def from_storage(rtype: ResourceType, version: str, obj: Obj) -> Obj:
    """A copy of stored ``obj`` as seen through ``version``."""
    return as_served(rtype, version, copy.deepcopy(obj))


def as_served(rtype: ResourceType, version: str, out: Obj) -> Obj:
    """``out``, a private copy of a stored object, turned in place into what ``version``
    serves (a list's copies are private already: a second copy would double its cost)."""
    if version != rtype.storage_version:
        _convert(rtype, out, upward=False)
    out["apiVersion"] = rtype.api_version(version)
    out["kind"] = rtype.kind
    return out
