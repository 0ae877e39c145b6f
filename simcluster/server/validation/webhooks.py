"""Rules Kueue's validating webhooks add on top of the CRD schema.

Each checker takes the defaulted new object and the stored old one (None on
create) and returns field errors. They only run after the structural schema
passed, so they may assume the types are right.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from kueuemodel import quantity_value
from simcluster.server.errors import Cause
from simcluster.server.validation import causes as c

Obj = dict[str, Any]
Checker = Callable[[Obj, Obj | None], list[Cause]]

MAX_FLAVORS = 256
MAX_RESOURCES = 256
MAX_FLAVOR_RESOURCES_PER_GROUP = 512
MIN_NONZERO_WEIGHT = Decimal("1e-9")
_QUALIFIED_NAME = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
)
_QUOTA_FIELDS = ("nominalQuota", "borrowingLimit", "lendingLimit")


def _resources(groups: list[Obj], path: str) -> Iterator[tuple[str, Obj, int, Obj]]:
    """Yield ``(path, group, index-in-flavor, resource)`` for every quota entry."""
    for gi, group in enumerate(groups):
        for fi, flavor in enumerate(group["flavors"]):
            for ri, resource in enumerate(flavor["resources"]):
                yield f"{path}[{gi}].flavors[{fi}].resources[{ri}]", group, ri, resource


def _non_negative(value: Any, path: str) -> list[Cause]:
    if quantity_value(value) < 0:
        return [c.invalid(path, value, "must be greater than or equal to 0")]
    return []


def _check_quotas(groups: list[Obj], path: str, has_parent: bool, parent_word: str) -> list[Cause]:
    """Names match coveredResources, no negatives, limits only with a parent."""
    out: list[Cause] = []
    for here, group, index, resource in _resources(groups, path):
        covered = group["coveredResources"]
        if index < len(covered) and resource["name"] != covered[index]:
            out.append(
                c.invalid(
                    f"{here}.name",
                    resource["name"],
                    f"must match the name in coveredResources: {covered[index]!r}",
                )
            )
        for field in _QUOTA_FIELDS:
            if field in resource:
                out.extend(_non_negative(resource[field], f"{here}.{field}"))
        for field in ("borrowingLimit", "lendingLimit"):
            if field in resource and not has_parent:
                out.append(
                    c.invalid(
                        f"{here}.{field}",
                        resource[field],
                        f"must be nil when {parent_word} is empty",
                    )
                )
    return out


def _check_group_uniqueness(groups: list[Obj], path: str) -> list[Cause]:
    """A resource or a flavor may appear in only one resource group; size limits."""
    out: list[Cause] = []
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    for gi, group in enumerate(groups):
        for ri, name in enumerate(group["coveredResources"]):
            if not _QUALIFIED_NAME.match(name):
                out.append(
                    c.invalid(
                        f"{path}[{gi}].coveredResources[{ri}]", name, "must be a qualified name"
                    )
                )
            if name in seen_resources:
                out.append(c.duplicate(f"{path}[{gi}].coveredResources[{ri}]", name))
            seen_resources.add(name)
        for fi, flavor in enumerate(group["flavors"]):
            if flavor["name"] in seen_flavors:
                out.append(c.duplicate(f"{path}[{gi}].flavors[{fi}].name", flavor["name"]))
            seen_flavors.add(flavor["name"])
        entries = len(group["flavors"]) * len(group["coveredResources"])
        if entries > MAX_FLAVOR_RESOURCES_PER_GROUP:
            out.append(c.too_many(f"{path}[{gi}]", entries, MAX_FLAVOR_RESOURCES_PER_GROUP))
    if len(seen_flavors) > MAX_FLAVORS:
        out.append(c.too_many(f"{path}[*].flavors", len(seen_flavors), MAX_FLAVORS))
    if len(seen_resources) > MAX_RESOURCES:
        out.append(c.too_many(f"{path}[*].coveredResources", len(seen_resources), MAX_RESOURCES))
    return out


def _check_weight(spec: Obj, path: str) -> list[Cause]:
    weight = (spec.get("fairSharing") or {}).get("weight")
    if weight is None:
        return []
    value = quantity_value(weight)
    if value < 0:
        return [
            c.invalid(f"{path}.fairSharing.weight", weight, "must be greater than or equal to 0")
        ]
    if 0 < value <= MIN_NONZERO_WEIGHT:
        return [c.invalid(f"{path}.fairSharing.weight", weight, "must be 0 or greater than 1e-9")]
    return []


def _lending_within_nominal(groups: list[Obj], path: str) -> list[Cause]:
    out = []
    for here, _group, _index, resource in _resources(groups, path):
        lending = resource.get("lendingLimit")
        if lending is not None and quantity_value(lending) > quantity_value(
            resource["nominalQuota"]
        ):
            out.append(
                c.invalid(
                    f"{here}.lendingLimit",
                    lending,
                    "must be less than or equal to the nominalQuota",
                )
            )
    return out


def _check_label_selector(selector: Obj | None, path: str) -> list[Cause]:
    out = []
    for index, expr in enumerate((selector or {}).get("matchExpressions") or []):
        here = f"{path}.matchExpressions[{index}]"
        operator, values = expr["operator"], expr.get("values") or []
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            out.append(
                c.not_supported(
                    f"{here}.operator", operator, ("In", "NotIn", "Exists", "DoesNotExist")
                )
            )
        elif operator in ("In", "NotIn") and not values:
            out.append(
                c.required(f"{here}.values", "must be specified when `operator` is 'In' or 'NotIn'")
            )
        elif operator in ("Exists", "DoesNotExist") and values:
            out.append(
                c.forbidden(
                    f"{here}.values",
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )
            )
    return out


def _check_admission_checks(spec: Obj) -> list[Cause]:
    flavors = {f["name"] for g in spec.get("resourceGroups") or [] for f in g["flavors"]}
    checks = (spec.get("admissionChecksStrategy") or {}).get("admissionChecks") or []
    out = []
    for ci, check in enumerate(checks):
        for fi, name in enumerate(check.get("onFlavors") or []):
            if name not in flavors:
                path = f"spec.admissionChecksStrategy.admissionChecks[{ci}].onFlavors[{fi}]"
                out.append(c.invalid(path, name, "must be one of the ClusterQueue's flavors"))
    return out


def cluster_queue(obj: Obj, old: Obj | None) -> list[Cause]:
    spec = obj.get("spec") or {}
    groups = spec.get("resourceGroups") or []
    path = "spec.resourceGroups"
    out = _check_group_uniqueness(groups, path)
    out += _check_quotas(groups, path, bool(spec.get("cohortName")), "cohort")
    if spec.get("cohortName"):
        out += _lending_within_nominal(groups, path)
    out += _check_weight(spec, "spec")
    out += _check_label_selector(spec.get("namespaceSelector"), "spec.namespaceSelector")
    return out + _check_admission_checks(spec)


def cohort(obj: Obj, old: Obj | None) -> list[Cause]:
    spec = obj.get("spec") or {}
    groups = spec.get("resourceGroups") or []
    out = _check_group_uniqueness(groups, "spec.resourceGroups")
    out += _check_quotas(groups, "spec.resourceGroups", bool(spec.get("parentName")), "parent")
    return out + _check_weight(spec, "spec")


def local_queue(obj: Obj, old: Obj | None) -> list[Cause]:
    spec = obj.get("spec") or {}
    out = _check_weight(spec, "spec")
    if old is not None:
        before = (old.get("spec") or {}).get("clusterQueue")
        if spec.get("clusterQueue") != before:
            out.append(
                c.invalid("spec.clusterQueue", spec.get("clusterQueue"), "field is immutable")
            )
    return out


def resource_flavor(obj: Obj, old: Obj | None) -> list[Cause]:
    spec = obj.get("spec") or {}
    out = []
    pairs: set[tuple[str, str]] = set()
    for index, taint in enumerate(spec.get("nodeTaints") or []):
        pair = (taint["key"], taint["effect"])
        if pair in pairs:
            out.append(c.duplicate(f"spec.nodeTaints[{index}]", f"{pair[0]}:{pair[1]}"))
        pairs.add(pair)
    before = ((old or {}).get("spec") or {}).get("topologyName")
    if before is not None and spec.get("topologyName") != before:
        out.append(c.invalid("spec", spec, "topologyName is immutable when topologyName is set"))
    for field in ("nodeLabels", "tolerations") if before is not None else ():
        if spec.get(field) != ((old or {}).get("spec") or {}).get(field):
            message = f"{field} are immutable when topologyName is set"
            out.append(c.invalid("spec", spec, message))
    return out


def topology(obj: Obj, old: Obj | None) -> list[Cause]:
    """A Topology's levels never change (Kueue's CEL rule ``self == oldSelf``)."""
    levels = (obj.get("spec") or {}).get("levels")
    if old is not None and levels != (old.get("spec") or {}).get("levels"):
        return [c.invalid("spec.levels", levels, "field is immutable")]
    return []


def _quota_reserved(obj: Obj | None) -> bool:
    conditions = ((obj or {}).get("status") or {}).get("conditions") or []
    return any(
        cond.get("type") == "QuotaReserved" and cond.get("status") == "True" for cond in conditions
    )


def _pod_requests(pod_set: Obj) -> Iterator[tuple[str, str, Any]]:
    spec = (pod_set.get("template") or {}).get("spec") or {}
    for kind in ("initContainers", "containers"):
        for ci, container in enumerate(spec.get(kind) or []):
            for section in ("requests", "limits"):
                for name, value in ((container.get("resources") or {}).get(section) or {}).items():
                    yield f"template.spec.{kind}[{ci}].resources.{section}[{name}]", name, value


def _check_pod_sets(spec: Obj) -> list[Cause]:
    out = []
    partial = 0
    for index, pod_set in enumerate(spec.get("podSets") or []):
        partial += "minCount" in pod_set
        for suffix, name, value in _pod_requests(pod_set):
            path = f"spec.podSets[{index}].{suffix}"
            if name == "pods":
                out.append(c.invalid(path, name, "the resource name 'pods' may not be requested"))
            elif not _is_non_negative_quantity(value):
                out.append(c.invalid(path, value, "must be a non-negative quantity"))
    if partial > 1:
        out.append(c.forbidden("spec.podSets", "at most one podSet can use minCount"))
    return out


def _is_non_negative_quantity(value: Any) -> bool:
    try:
        return quantity_value(value) >= 0
    except ValueError:
        return False


def _check_reserved_immutables(spec: Obj, old: Obj) -> list[Cause]:
    old_spec = old.get("spec") or {}
    out = []
    if spec.get("podSets") != old_spec.get("podSets"):
        out.append(
            c.invalid(
                "spec.podSets", spec.get("podSets"), "field is immutable while quota is reserved"
            )
        )
    old_ref, ref = old_spec.get("priorityClassRef"), spec.get("priorityClassRef")
    if (old_ref is None) != (ref is None):
        out.append(
            c.invalid(
                "spec.priorityClassRef",
                ref,
                "priorityClassRef is immutable while workload quota reserved",
            )
        )
    elif ref and (ref["group"], ref["kind"]) != (old_ref["group"], old_ref["kind"]):
        out.append(
            c.invalid(
                "spec.priorityClassRef",
                ref,
                "priorityClassRef group and kind are immutable while workload quota reserved",
            )
        )
    elif ref and ref["kind"] == "PriorityClass" and ref["name"] != old_ref["name"]:
        out.append(
            c.invalid(
                "spec.priorityClassRef.name",
                ref["name"],
                "immutable for PriorityClass while workload quota reserved",
            )
        )
    return out


def workload(obj: Obj, old: Obj | None) -> list[Cause]:
    spec = obj.get("spec") or {}
    out = _check_pod_sets(spec)
    if old is not None and _quota_reserved(old):
        out += _check_reserved_immutables(spec, old)
        old_queue = (old.get("spec") or {}).get("queueName")
        if _quota_reserved(obj) and spec.get("queueName") != old_queue:
            out.append(
                c.invalid(
                    "spec.queueName",
                    spec.get("queueName"),
                    "queueName is immutable while workload quota reserved",
                )
            )
    return out


def _no_checks(obj: Obj, old: Obj | None) -> list[Cause]:
    return []


CHECKERS: dict[str, Checker] = {
    "ClusterQueue": cluster_queue,
    "Cohort": cohort,
    "LocalQueue": local_queue,
    "ResourceFlavor": resource_flavor,
    "Topology": topology,
    "Workload": workload,
    "WorkloadPriorityClass": _no_checks,
}
