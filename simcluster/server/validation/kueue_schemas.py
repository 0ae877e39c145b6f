"""Structural schemas (types, limits, defaults, CEL-equivalent rules) of the Kueue kinds.

Written from the documented v1beta2 API (see docs/simcluster.md). The test
``test_server_crd_crosscheck.py`` checks these rules against the published CRDs.
"""

from __future__ import annotations

from typing import Any

from simcluster.server.errors import Cause
from simcluster.server.validation import causes as c
from simcluster.server.validation.schema import (
    Arr,
    Bool,
    Int,
    Map,
    Node,
    Obj,
    Preserve,
    Quantity,
    Str,
)

DNS1123_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
DNS1123_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
STOP_POLICIES = ("None", "Hold", "HoldAndDrain")
FUNGIBILITY = ("MayStopSearch", "TryNextFlavor")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def name_ref() -> Str:
    return Str(pattern=DNS1123_SUBDOMAIN, max_len=253)


def _same_size_as_covered(group: dict[str, Any], path: str) -> list[Cause]:
    size = len(group["coveredResources"])
    if all(len(flavor["resources"]) == size for flavor in group["flavors"]):
        return []
    return [
        c.invalid(
            path, group, "flavors must have the same number of resources as the coveredResources"
        )
    ]


def _resource_groups() -> Arr:
    resource = Obj(
        {
            "name": Str(),
            "nominalQuota": Quantity(),
            "borrowingLimit": Quantity(),
            "lendingLimit": Quantity(),
        },
        required=("name", "nominalQuota"),
    )
    flavor = Obj(
        {"name": name_ref(), "resources": Arr(resource, min_items=1, max_items=64, key="name")},
        required=("name", "resources"),
    )
    group = Obj(
        {
            "coveredResources": Arr(Str(), min_items=1, max_items=64),
            "flavors": Arr(flavor, min_items=1, max_items=64, key="name"),
        },
        required=("coveredResources", "flavors"),
        rules=(_same_size_as_covered,),
    )
    return Arr(group, max_items=16)


def _fair_sharing() -> Obj:
    return Obj({"weight": Quantity(default=1)})


def _label_selector() -> Obj:
    expression = Obj(
        {"key": Str(), "operator": Str(), "values": Arr(Str())},
        required=("key", "operator"),
    )
    return Obj({"matchLabels": Map(Str()), "matchExpressions": Arr(expression)})


def _preference_needs_try_next(value: dict[str, Any], path: str) -> list[Cause]:
    both_try_next = value.get("whenCanBorrow") == value.get("whenCanPreempt") == "TryNextFlavor"
    if "preference" not in value or both_try_next:
        return []
    detail = (
        "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor"
    )
    return [c.invalid(path, value, detail)]


def _reclaim_never_blocks_borrow(value: dict[str, Any], path: str) -> list[Cause]:
    borrow_policy = (value.get("borrowWithinCohort") or {}).get("policy", "Never")
    if value.get("reclaimWithinCohort") == "Never" and borrow_policy != "Never":
        return [
            c.invalid(path, value, "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never")
        ]
    return []


def _borrowing_limit_needs_cohort(spec: dict[str, Any], path: str) -> list[Cause]:
    if spec.get("cohortName"):
        return []
    for group in spec.get("resourceGroups") or []:
        for flavor in group.get("flavors", []):
            if any("borrowingLimit" in r for r in flavor.get("resources", [])):
                return [c.invalid(path, spec, "borrowingLimit must be nil when cohort is empty")]
    return []


def _preemption() -> Obj:
    return Obj(
        {
            "reclaimWithinCohort": Str(enum=("Never", "LowerPriority", "Any"), default="Never"),
            "withinClusterQueue": Str(
                enum=("Never", "LowerPriority", "LowerOrNewerEqualPriority"), default="Never"
            ),
            "borrowWithinCohort": Obj(
                {
                    "policy": Str(enum=("Never", "LowerPriority"), default="Never"),
                    "maxPriorityThreshold": Int(),
                },
                default={},
            ),
        },
        default={},
        rules=(_reclaim_never_blocks_borrow,),
    )


def _fungibility() -> Obj:
    return Obj(
        {
            "whenCanBorrow": Str(enum=FUNGIBILITY, default="MayStopSearch"),
            "whenCanPreempt": Str(enum=FUNGIBILITY, default="TryNextFlavor"),
            "preference": Str(enum=("BorrowingOverPreemption", "PreemptionOverBorrowing")),
        },
        default={},
        rules=(_preference_needs_try_next,),
    )


def _cluster_queue_spec() -> Obj:
    check = Obj(
        {"name": Str(min_len=1, max_len=316), "onFlavors": Arr(name_ref(), max_items=64)},
        required=("name",),
    )
    return Obj(
        {
            "resourceGroups": _resource_groups(),
            "cohortName": name_ref(),
            "queueingStrategy": Str(
                enum=("StrictFIFO", "BestEffortFIFO"), default="BestEffortFIFO"
            ),
            "namespaceSelector": _label_selector(),
            "flavorFungibility": _fungibility(),
            "preemption": _preemption(),
            "stopPolicy": Str(enum=STOP_POLICIES, default="None"),
            "fairSharing": _fair_sharing(),
            "admissionScope": Obj(
                {
                    "admissionMode": Str(
                        enum=("UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing")
                    )
                },
                required=("admissionMode",),
            ),
            "admissionChecksStrategy": Obj(
                {"admissionChecks": Arr(check, min_items=1, max_items=64, key="name")},
                required=("admissionChecks",),
            ),
        },
        rules=(_borrowing_limit_needs_cohort,),
    )


def _taint_effects(taints: list[dict[str, Any]], path: str) -> list[Cause]:
    for taint in taints:
        if taint.get("effect") not in TAINT_EFFECTS:
            return [c.not_supported(path, taint.get("effect"), TAINT_EFFECTS)]
    return []


def _toleration_rules(tolerations: list[dict[str, Any]], path: str) -> list[Cause]:
    out: list[Cause] = []
    for index, tol in enumerate(tolerations):
        here = f"{path}[{index}]"
        operator = tol.get("operator", "Equal")
        if operator not in ("Equal", "Exists"):
            out.append(c.not_supported(f"{here}.operator", operator, ("Equal", "Exists")))
        if "key" not in tol and operator != "Exists":
            out.append(
                c.invalid(
                    f"{here}.operator", operator, "operator must be Exists when 'key' is empty"
                )
            )
        if operator == "Exists" and "value" in tol:
            out.append(
                c.invalid(
                    f"{here}.value",
                    tol["value"],
                    "a value must be empty when 'operator' is 'Exists'",
                )
            )
        if "tolerationSeconds" in tol and tol.get("effect") != "NoExecute":
            out.append(
                c.invalid(
                    f"{here}.effect",
                    tol.get("effect", ""),
                    "effect must be 'NoExecute' when 'tolerationSeconds' is set",
                )
            )
        if "effect" in tol and tol["effect"] not in TAINT_EFFECTS:
            out.append(c.not_supported(f"{here}.effect", tol["effect"], TAINT_EFFECTS))
    return out


def _topology_needs_labels(spec: dict[str, Any], path: str) -> list[Cause]:
    if "topologyName" in spec and not spec.get("nodeLabels"):
        return [c.invalid(path, spec, "at least one nodeLabel is required when topology is set")]
    return []


def _resource_flavor_spec() -> Obj:
    taint = Obj(
        {"key": Str(), "value": Str(), "effect": Str(), "timeAdded": Str()},
        required=("effect", "key"),
    )
    toleration = Obj(
        {
            "key": Str(),
            "operator": Str(),
            "value": Str(),
            "effect": Str(),
            "tolerationSeconds": Int(bits=64),
        }
    )
    return Obj(
        {
            "nodeLabels": Map(Str(), max_props=8),
            "nodeTaints": Arr(taint, max_items=8),
            "tolerations": Arr(toleration, max_items=8),
            "topologyName": name_ref(),
        },
        rules=(
            _topology_needs_labels,
            _nested_rule("nodeTaints", _taint_effects),
            _nested_rule("tolerations", _toleration_rules),
        ),
    )


LABEL_KEY = (
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
)
HOSTNAME_LABEL = "kubernetes.io/hostname"


def _topology_levels_rules(levels: list[dict[str, Any]], path: str) -> list[Cause]:
    keys = [level.get("nodeLabel") for level in levels]
    out = []
    if len(set(keys)) != len(keys):
        out.append(c.invalid(path, levels, "must be unique"))
    if HOSTNAME_LABEL in keys[:-1]:
        message = (
            "the kubernetes.io/hostname label can only be used at the lowest level of topology"
        )
        out.append(c.invalid(path, levels, message))
    return out


def _topology_spec() -> Obj:
    level = Obj(
        {"nodeLabel": Str(pattern=LABEL_KEY, max_len=316, min_len=1)}, required=("nodeLabel",)
    )
    return Obj(
        {"levels": Arr(level, min_items=1, max_items=16)},
        required=("levels",),
        rules=(_nested_rule("levels", _topology_levels_rules),),
    )


def _nested_rule(field: str, rule: Any) -> Any:
    """Run a list rule on ``field`` of the object (kept on the parent so defaults apply first)."""

    def run(value: dict[str, Any], path: str) -> list[Cause]:
        return rule(value[field], f"{path}.{field}") if field in value else []

    return run


def _min_count_within_count(pod_set: dict[str, Any], path: str) -> list[Cause]:
    if "minCount" in pod_set and pod_set["minCount"] > pod_set.get("count", 1):
        return [c.invalid(path, pod_set, "minCount should be positive and less or equal to count")]
    return []


def _priority_ref_pairs(ref: dict[str, Any], path: str) -> list[Cause]:
    pairs = {"scheduling.k8s.io": "PriorityClass", "kueue.x-k8s.io": "WorkloadPriorityClass"}
    if pairs[ref["group"]] != ref["kind"]:
        return [
            c.invalid(
                path,
                ref,
                f"only the {pairs[ref['group']]} kind is allowed for the {ref['group']} group",
            )
        ]
    return []


def _priority_with_ref(spec: dict[str, Any], path: str) -> list[Cause]:
    if "priorityClassRef" in spec and "priority" not in spec:
        return [c.invalid(path, spec, "priority should not be nil when priorityClassRef is set")]
    return []


def _workload_spec() -> Obj:
    pod_set = Obj(
        {
            "name": Str(pattern=DNS1123_LABEL, max_len=63, default="main"),
            "template": Preserve(),
            "count": Int(minimum=0, default=1),
            "minCount": Int(minimum=1),
            "topologyRequest": Preserve(),
        },
        required=("template",),
        rules=(_min_count_within_count,),
    )
    ref = Obj(
        {
            "group": Str(enum=("kueue.x-k8s.io", "scheduling.k8s.io")),
            "kind": Str(enum=("WorkloadPriorityClass", "PriorityClass")),
            "name": Str(pattern=DNS1123_SUBDOMAIN, max_len=253, min_len=1),
        },
        required=("group", "kind", "name"),
        rules=(_priority_ref_pairs,),
    )
    return Obj(
        {
            "podSets": Arr(pod_set, min_items=1, max_items=8, key="name"),
            "queueName": name_ref(),
            "priorityClassRef": ref,
            "priority": Int(),
            "active": Bool(default=True),
            "maximumExecutionTimeSeconds": Int(minimum=1),
            "preemptionGates": Arr(
                Obj({"name": Str(min_len=1, max_len=63)}, required=("name",)),
                max_items=8,
                key="name",
            ),
        },
        rules=(_priority_with_ref,),
    )


def _envelope(fields: dict[str, Node], required: tuple[str, ...] = (), status: bool = True) -> Obj:
    base: dict[str, Node] = {"apiVersion": Str(), "kind": Str(), "metadata": Preserve()}
    if status:
        # Status is written by controllers (the engine); it is kept as sent.
        base["status"] = Preserve()
    return Obj({**base, **fields}, required=required)


def build_schemas() -> dict[str, Obj]:
    """Top-level schema per Kueue kind."""
    return {
        "Topology": _envelope({"spec": _topology_spec()}, status=False),
        "ResourceFlavor": _envelope({"spec": _resource_flavor_spec()}, status=False),
        "ClusterQueue": _envelope({"spec": _cluster_queue_spec()}),
        "Cohort": _envelope(
            {
                "spec": Obj(
                    {
                        "parentName": name_ref(),
                        "resourceGroups": _resource_groups(),
                        "fairSharing": _fair_sharing(),
                    }
                )
            }
        ),
        "LocalQueue": _envelope(
            {
                "spec": Obj(
                    {
                        "clusterQueue": name_ref(),
                        "stopPolicy": Str(enum=STOP_POLICIES, default="None"),
                        "fairSharing": _fair_sharing(),
                    }
                )
            }
        ),
        "WorkloadPriorityClass": _envelope(
            {"value": Int(), "description": Str(max_len=2048)}, required=("value",), status=False
        ),
        "Workload": _envelope({"spec": _workload_spec()}),
    }


SCHEMAS = build_schemas()
