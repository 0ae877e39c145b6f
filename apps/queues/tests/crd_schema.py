"""Kueue CRD OpenAPI schemas as JSON Schema validators (tests only).

The CRDs are read from the pinned Kueue release in the Go module cache
(``realcluster/versions.env``; downloaded on first use). Kubernetes
extensions are translated: ``x-kubernetes-int-or-string`` becomes "integer or
string"; objects with declared properties reject unknown fields (the API server
would silently prune them, hiding a typo); CEL rules are not evaluated (the
simulated cluster enforces those).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema
import yaml

from realcluster.build_info import kueue_crd_dir

FILES = {
    "Topology": "kueue.x-k8s.io_topologies.yaml",
    "ResourceFlavor": "kueue.x-k8s.io_resourceflavors.yaml",
    "Cohort": "kueue.x-k8s.io_cohorts.yaml",
    "ClusterQueue": "kueue.x-k8s.io_clusterqueues.yaml",
    "LocalQueue": "kueue.x-k8s.io_localqueues.yaml",
    "WorkloadPriorityClass": "kueue.x-k8s.io_workloadpriorityclasses.yaml",
}


def _translate(node: Any) -> Any:
    if isinstance(node, list):
        return [_translate(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _translate(v) for k, v in node.items() if not k.startswith("x-kubernetes-")}
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if "properties" in node and not node.get("x-kubernetes-preserve-unknown-fields"):
        out.setdefault("additionalProperties", False)
    return out


@cache
def validator(kind: str, version: str = "v1beta2") -> jsonschema.Draft7Validator:
    crd = yaml.safe_load((kueue_crd_dir() / FILES[kind]).read_text())
    (served,) = [v for v in crd["spec"]["versions"] if v["name"] == version]
    schema = _translate(served["schema"]["openAPIV3Schema"])
    return jsonschema.Draft7Validator(schema)


def schema_errors(obj: dict) -> list[str]:
    """Every schema violation of a Kueue manifest, as readable strings."""
    version = obj["apiVersion"].split("/")[1]
    found = validator(obj["kind"], version).iter_errors(obj)
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in found]
