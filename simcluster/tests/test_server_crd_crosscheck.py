"""Cross-check our hand-written admission rules against the published Kueue CRDs.

Three angles: (1) our schema tree matches the CRD tree field by field (enums,
defaults, limits, patterns, required lists); (2) objects the server accepts,
read back with defaults, validate against the CRD schema; (3) objects the CRD
schema rejects are rejected by the server too.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from kubernetes import client

from realcluster.build_info import kueue_crd_dir
from simcluster.server.validation.kueue_schemas import SCHEMAS
from simcluster.server.validation.schema import MISSING, Arr, Int, Map, Node, Obj, Preserve, Str
from testkit.kube_objects import KUEUE, make_cq, make_lq, make_workload

CRD_FILES = {
    "ClusterQueue": "clusterqueues",
    "Cohort": "cohorts",
    "LocalQueue": "localqueues",
    "ResourceFlavor": "resourceflavors",
    "Topology": "topologies",
    "WorkloadPriorityClass": "workloadpriorityclasses",
    "Workload": "workloads",
}
INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def crd_dir() -> Path:
    return kueue_crd_dir()


@functools.cache
def crd_schema(kind: str, version: str = "v1beta2") -> dict[str, Any]:
    document = yaml.load(
        (crd_dir() / f"kueue.x-k8s.io_{CRD_FILES[kind]}.yaml").read_text(), Loader=yaml.CSafeLoader
    )
    served = next(v for v in document["spec"]["versions"] if v["name"] == version)
    return served["schema"]["openAPIV3Schema"]


def to_json_schema(node: Any) -> Any:
    """Make a CRD schema checkable by jsonschema: closed objects, integer ranges."""
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {
        key: to_json_schema(value)
        for key, value in node.items()
        if key != "x-kubernetes-validations"
    }
    if node.get("format") in INT_RANGES and node.get("type") == "integer":
        out["minimum"] = max(
            out.get("minimum", INT_RANGES[node["format"]][0]), INT_RANGES[node["format"]][0]
        )
        out["maximum"] = INT_RANGES[node["format"]][1]
    structural = "properties" in node and "additionalProperties" not in node
    if structural and not node.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    return out


@functools.cache
def validator(kind: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(to_json_schema(crd_schema(kind)))


def schema_errors(kind: str, obj: dict[str, Any]) -> list[str]:
    errors = validator(kind).iter_errors(obj)
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]


# -- (1) rule-by-rule comparison -------------------------------------------------


def compare(ours: Node, theirs: dict[str, Any], path: str, problems: list[str]) -> None:
    """Walk both trees; record every difference in enums, defaults, limits, required."""
    if isinstance(ours, Preserve):
        return
    expected_default = theirs.get("default", MISSING)
    if ours.default != expected_default:
        problems.append(f"{path}: default {ours.default!r} != {expected_default!r}")
    if isinstance(ours, Str):
        _compare_attrs(
            path,
            problems,
            (tuple(ours.enum), tuple(theirs.get("enum", ()))),
            (ours.max_len, theirs.get("maxLength")),
            (ours.min_len, theirs.get("minLength")),
            (ours.pattern, theirs.get("pattern")),
        )
    elif isinstance(ours, Int):
        _compare_attrs(
            path,
            problems,
            (ours.minimum, theirs.get("minimum")),
            (f"int{ours.bits}", theirs.get("format", "int64")),
        )
    elif isinstance(ours, Obj):
        _compare_object(ours, theirs, path, problems)
    elif isinstance(ours, Arr):
        _compare_attrs(
            path,
            problems,
            (ours.max_items, theirs.get("maxItems")),
            (ours.min_items, theirs.get("minItems")),
            (ours.key, (theirs.get("x-kubernetes-list-map-keys") or [None])[0]),
        )
        compare(ours.item, theirs.get("items", {}), f"{path}[]", problems)
    elif isinstance(ours, Map):
        _compare_attrs(path, problems, (ours.max_props, theirs.get("maxProperties")))
        compare(ours.value, theirs.get("additionalProperties", {}), f"{path}{{}}", problems)


def _compare_attrs(path: str, problems: list[str], *pairs: tuple[Any, Any]) -> None:
    for mine, crd in pairs:
        if mine != crd:
            problems.append(f"{path}: {mine!r} != CRD {crd!r}")


def _compare_object(ours: Obj, theirs: dict[str, Any], path: str, problems: list[str]) -> None:
    properties = theirs.get("properties", {})
    if sorted(ours.required) != sorted(theirs.get("required", [])):
        problems.append(
            f"{path}: required {sorted(ours.required)} != {sorted(theirs.get('required', []))}"
        )
    for name in sorted(set(properties) | set(ours.fields)):
        if name not in ours.fields:
            problems.append(f"{path}.{name}: in the CRD but not in our schema")
        elif name not in properties:
            problems.append(f"{path}.{name}: in our schema but not in the CRD")
        else:
            compare(ours.fields[name], properties[name], f"{path}.{name}".lstrip("."), problems)


@pytest.mark.parametrize("kind", sorted(CRD_FILES))
def test_our_schema_matches_the_crd_field_by_field(kind):
    problems: list[str] = []
    compare(SCHEMAS[kind], crd_schema(kind), "", problems)
    assert problems == []


# -- (2) accepted objects satisfy the CRD ----------------------------------------

ACCEPTED = {
    "ResourceFlavor": [
        {"metadata": {"name": "default"}},
        {
            "metadata": {"name": "h100"},
            "spec": {
                "nodeLabels": {"gpu": "h100"},
                "nodeTaints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
                "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
            },
        },
    ],
    "Cohort": [
        {"metadata": {"name": "root"}, "spec": {"fairSharing": {"weight": "1.5"}}},
        {
            "metadata": {"name": "child"},
            "spec": {
                "parentName": "root",
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu"],
                        "flavors": [
                            {
                                "name": "f",
                                "resources": [
                                    {
                                        "name": "cpu",
                                        "nominalQuota": 4,
                                        "lendingLimit": 2,
                                        "borrowingLimit": "500m",
                                    }
                                ],
                            }
                        ],
                    }
                ],
            },
        },
    ],
    "ClusterQueue": [
        make_cq("plain"),
        make_cq("standalone", cohort=None),
        make_cq(
            "tuned",
            queueingStrategy="StrictFIFO",
            stopPolicy="Hold",
            fairSharing={"weight": 0},
            flavorFungibility={
                "whenCanBorrow": "TryNextFlavor",
                "preference": "BorrowingOverPreemption",
            },
            preemption={
                "reclaimWithinCohort": "Any",
                "withinClusterQueue": "LowerPriority",
                "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 100},
            },
        ),
    ],
    "LocalQueue": [
        make_lq("lq"),
        {
            **make_lq("held"),
            "spec": {
                "clusterQueue": "cq",
                "stopPolicy": "HoldAndDrain",
                "fairSharing": {"weight": 2},
            },
        },
    ],
    "WorkloadPriorityClass": [
        {"metadata": {"name": "high"}, "value": 1000, "description": "urgent"}
    ],
    "Workload": [
        make_workload("w"),
        {
            **make_workload("ranked"),
            "spec": {
                **make_workload("x")["spec"],
                "priority": 5,
                "priorityClassRef": {
                    "group": "kueue.x-k8s.io",
                    "kind": "WorkloadPriorityClass",
                    "name": "high",
                },
            },
        },
    ],
}


def plural(kind: str) -> str:
    return CRD_FILES[kind]


def create(custom, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    body = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": kind, **copy.deepcopy(body)}
    if kind in ("LocalQueue", "Workload"):
        return custom.create_namespaced_custom_object(*KUEUE, "default", plural(kind), body)
    return custom.create_cluster_custom_object(*KUEUE, plural(kind), body)


@pytest.mark.parametrize("kind", sorted(ACCEPTED))
def test_objects_we_accept_validate_against_the_crd(custom, kind):
    for body in ACCEPTED[kind]:
        stored = create(custom, kind, body)
        assert schema_errors(kind, stored) == [], stored


# -- (3) objects the CRD rejects, we reject ---------------------------------------


def _cq(**resource: Any) -> dict[str, Any]:
    body = make_cq("cq")
    body["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0].update(resource)
    return body


def _many_groups() -> dict[str, Any]:
    body = make_cq("cq")
    group = body["spec"]["resourceGroups"][0]
    body["spec"]["resourceGroups"] = [
        {
            **copy.deepcopy(group),
            "coveredResources": [f"r{i}"],
            "flavors": [{"name": f"f{i}", "resources": [{"name": f"r{i}", "nominalQuota": 1}]}],
        }
        for i in range(17)
    ]
    return body


REJECTED = [
    ("ClusterQueue", make_cq("cq", queueingStrategy="LIFO")),
    ("ClusterQueue", make_cq("cq", stopPolicy="Pause")),
    ("ClusterQueue", make_cq("cq", cohort="UPPER")),
    ("ClusterQueue", make_cq("cq", cohort="x" * 254)),
    ("ClusterQueue", _cq(nominalQuota="eight")),
    ("ClusterQueue", _cq(nominalQuota=1.5)),
    ("ClusterQueue", _cq(nominalQuota=None)),
    ("ClusterQueue", _many_groups()),
    (
        "ClusterQueue",
        make_cq(
            "cq",
            resourceGroups=[
                {
                    "coveredResources": [],
                    "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": 1}]}],
                }
            ],
        ),
    ),
    ("ClusterQueue", make_cq("cq", preemption={"withinClusterQueue": "Always"})),
    ("ClusterQueue", make_cq("cq", admissionScope={})),
    ("LocalQueue", {**make_lq("lq"), "spec": {"clusterQueue": "cq", "stopPolicy": "Stop"}}),
    ("LocalQueue", {**make_lq("lq"), "spec": {"clusterQueue": "Not_A_Name"}}),
    (
        "ResourceFlavor",
        {"metadata": {"name": "f"}, "spec": {"nodeLabels": {f"k{i}": "v" for i in range(9)}}},
    ),
    ("WorkloadPriorityClass", {"metadata": {"name": "p"}, "value": "high"}),
    ("WorkloadPriorityClass", {"metadata": {"name": "p"}, "value": 1, "description": "x" * 2049}),
    ("Workload", {**make_workload("w"), "spec": {"podSets": []}}),
    (
        "Workload",
        {
            **make_workload("w"),
            "spec": {"podSets": [{"name": "main", "count": -1, "template": {}}]},
        },
    ),
    ("Workload", {**make_workload("w"), "spec": {"podSets": [{"name": "Main", "template": {}}]}}),
    (
        "Workload",
        {
            **make_workload("w"),
            "spec": {
                "podSets": [{"name": "main", "template": {}}],
                "priorityClassRef": {"group": "example.com", "kind": "PriorityClass", "name": "p"},
                "priority": 1,
            },
        },
    ),
    (
        "Workload",
        {
            **make_workload("w"),
            "spec": {
                "podSets": [{"name": "main", "template": {}}],
                "maximumExecutionTimeSeconds": 0,
            },
        },
    ),
]


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip_nulls(v) for v in value]
    return value


@pytest.mark.parametrize(
    ("kind", "body"), REJECTED, ids=[f"{kind}-{i}" for i, (kind, _) in enumerate(REJECTED)]
)
def test_objects_the_crd_rejects_are_rejected(custom, kind, body):
    body = _strip_nulls(body)
    full = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": kind, **body}
    assert schema_errors(kind, full), "the CRD schema should reject this sample"
    with pytest.raises(client.ApiException) as caught:
        create(custom, kind, body)
    assert caught.value.status == 422
