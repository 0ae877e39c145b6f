"""Fake GPU nodes that KWOK keeps alive, and the KWOK stages that drive pods.

A node is an ordinary Node object carrying KWOK's annotation: KWOK marks it Ready,
keeps its lease, and moves pods bound to it through create → ready → complete (Job
pods only; StatefulSet pods stay Running), with KWOK's own stages read from its module.
One change: a Job pod completes after the duration its job asked for, the portal's
``quartermaster.io/simulated-duration`` annotation (the same one the simulated cluster
honours), instead of KWOK's 1–5 s.
"""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

MANAGED_ANNOTATION = "kwok.x-k8s.io/node"
# What a demo or test cluster runs a job's pods for; a kubelet ignores it.
DURATION_ANNOTATION = "quartermaster.io/simulated-duration"
# KWOK's stage sets, read from its module at run time.
STAGE_SETS = ("node/fast", "node/heartbeat-with-lease", "pod/general")


def stage_documents(kwok_module: Path) -> list[dict]:
    """KWOK's node and pod stages, pod completion timed by ``DURATION_ANNOTATION``."""
    stages: list[dict] = []
    for stage_set in STAGE_SETS:
        folder = kwok_module / "kustomize" / "stage" / stage_set
        for path in sorted(folder.glob("*.yaml")):
            if path.name != "kustomization.yaml":
                stages += [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    return [_timed_completion(s) if s["metadata"]["name"] == "pod-complete" else s for s in stages]


def _timed_completion(stage: dict) -> dict:
    stage = copy.deepcopy(stage)
    expression = f'.metadata.annotations["{DURATION_ANNOTATION}"]'
    delay = stage["spec"]["delay"]
    delay["durationFrom"] = {"expressionFrom": expression}
    # Without jitter the pod completes exactly then; unannotated pods keep KWOK's default.
    delay["jitterDurationFrom"] = {"expressionFrom": expression}
    return stage


def gpu_node(name: str, *, labels: dict[str, str], resources: dict[str, str]) -> dict:
    """A Node with ``resources`` (e.g. ``{"nvidia.com/gpu": "8"}``) on top of CPU and memory."""
    capacity = {"cpu": "128", "memory": "1Ti", "pods": "250", **resources}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": {MANAGED_ANNOTATION: "fake", "node.alpha.kubernetes.io/ttl": "0"},
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "type": "kwok",
                **labels,
            },
        },
        "spec": {},
        "status": {"capacity": capacity, "allocatable": capacity},
    }


def as_kwok_node(node: dict) -> dict:
    """A Node manifest from elsewhere (e.g. the demo's), handed to KWOK to keep Ready."""
    node = copy.deepcopy(node)
    node.setdefault("metadata", {}).setdefault("annotations", {})[MANAGED_ANNOTATION] = "fake"
    return node
