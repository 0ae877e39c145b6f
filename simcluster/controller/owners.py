"""What a Workload was made from: a Job, a plain Pod or a StatefulSet (pure functions).

Kueue's integrations turn each of these into a Workload; ``Owner`` keeps the
parts the controller needs later (the original pod template, to render pods
and to restore the template when the job is suspended again).
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from typing import Any

from kueuemodel import PRIORITY_LABEL, QUEUE_LABEL

Obj = dict[str, Any]
JOB, POD, STATEFULSET = "Job", "Pod", "StatefulSet"
API_VERSIONS = {JOB: "batch/v1", POD: "v1", STATEFULSET: "apps/v1"}
NAME_PREFIX = {JOB: "job", POD: "pod", STATEFULSET: "statefulset"}
ADMISSION_GATE = "kueue.x-k8s.io/admission"
MANAGED_LABEL = "kueue.x-k8s.io/managed"
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
GROUP_COUNT_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count"
SIM_ANNOTATIONS = (
    "simcluster/duration",
    "simcluster/utilization",
    "simcluster/checkpoint-interval",
)
# The cluster-agnostic run time a demo job asks for (the portal writes it; the real test
# cluster's KWOK stage honours it too); the engine reads it as ``simcluster/duration``.
SIMULATED_DURATION = "quartermaster.io/simulated-duration"
# How often the job checkpoints (the portal's contract with training code, docs/checkpoints.md).
CHECKPOINT_INTERVAL = "quartermaster.io/checkpoint-interval"


@dataclass
class Owner:
    """The object behind one Workload."""

    kind: str
    namespace: str
    name: str
    uid: str
    template: Obj
    count: int
    workload: str
    annotations: dict[str, str] = field(default_factory=dict)
    suspended: bool = True

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.namespace, self.name)

    def reference(self) -> Obj:
        return {
            "apiVersion": API_VERSIONS[self.kind],
            "kind": self.kind,
            "name": self.name,
            "uid": self.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }


def meta(obj: Obj) -> Obj:
    return obj.get("metadata") or {}


def queue_name(obj: Obj) -> str:
    return (meta(obj).get("labels") or {}).get(QUEUE_LABEL, "")


def priority_class(obj: Obj) -> str:
    return (meta(obj).get("labels") or {}).get(PRIORITY_LABEL, "")


def workload_name(kind: str, name: str, uid: str) -> str:
    """``job-<name>-<5 hash chars>``, the prefix cut so the whole fits 253 chars."""
    digest = hashlib.sha256(f"{kind}/{uid}".encode()).hexdigest()[:5]
    return f"{NAME_PREFIX[kind]}-{name[:240]}-{digest}"


def owner_of(obj: Obj) -> Owner | None:
    """The Owner for a Job, Pod or StatefulSet that asks for a queue, else None."""
    kind = obj.get("kind") or ""
    if not queue_name(obj) or kind not in NAME_PREFIX:
        return None
    spec = obj.get("spec") or {}
    if kind == POD:
        template = {"metadata": copy.deepcopy(meta(obj)), "spec": copy.deepcopy(spec)}
        count = 1
    else:
        template = copy.deepcopy(spec.get("template") or {})
        count = _job_count(spec) if kind == JOB else int(spec.get("replicas", 1))
    m = meta(obj)
    annotations = {**(m.get("annotations") or {}), **_template_annotations(template)}
    return Owner(
        kind,
        m.get("namespace") or "default",
        m["name"],
        m.get("uid") or "",
        template,
        count,
        workload_name(kind, m["name"], m.get("uid") or ""),
        _simulation_notes(annotations),
    )


def _simulation_notes(annotations: dict[str, str]) -> dict[str, str]:
    notes = {k: v for k, v in annotations.items() if k in SIM_ANNOTATIONS}
    if SIMULATED_DURATION in annotations:
        notes.setdefault("simcluster/duration", annotations[SIMULATED_DURATION])
    if CHECKPOINT_INTERVAL in annotations:
        notes.setdefault("simcluster/checkpoint-interval", annotations[CHECKPOINT_INTERVAL])
    return notes


def _template_annotations(template: Obj) -> dict[str, str]:
    return dict(meta(template).get("annotations") or {})


def _job_count(spec: Obj) -> int:
    parallelism = int(spec.get("parallelism", 1))
    completions = spec.get("completions")
    return min(parallelism, int(completions)) if completions is not None else parallelism


def pod_template_spec(owner: Owner) -> Obj:
    """The pod spec as the workload should see it (no admission gate)."""
    spec = copy.deepcopy(owner.template.get("spec") or {})
    gates = [g for g in spec.get("schedulingGates") or () if g.get("name") != ADMISSION_GATE]
    spec.pop("schedulingGates", None)
    if gates:
        spec["schedulingGates"] = gates
    spec.pop("nodeName", None)
    return spec


# Kueue's TAS pod-set annotations and the topologyRequest field each one fills.
TOPOLOGY_REQUESTS = {
    "kueue.x-k8s.io/podset-required-topology": "required",
    "kueue.x-k8s.io/podset-preferred-topology": "preferred",
}


def topology_request(template: Obj) -> Obj:
    """A pod set's ``topologyRequest`` as Kueue builds it from the pod template's annotations."""
    annotations = meta(template).get("annotations") or {}
    return {
        field: annotations[key] for key, field in TOPOLOGY_REQUESTS.items() if key in annotations
    }


def workload_for(owner: Owner, source: Obj, priority: int | None) -> Obj:
    """The Workload Kueue's integration creates for ``owner``."""
    pod_set: Obj = {
        "name": "main",
        "count": owner.count,
        "template": {"spec": pod_template_spec(owner)},
    }
    if topology := topology_request(owner.template):
        pod_set["topologyRequest"] = topology
    spec: Obj = {"queueName": queue_name(source), "podSets": [pod_set]}
    pclass = priority_class(source)
    if pclass and priority is not None:
        spec["priorityClassRef"] = {
            "group": "kueue.x-k8s.io",
            "kind": "WorkloadPriorityClass",
            "name": pclass,
        }
        spec["priority"] = priority
    labels = {"kueue.x-k8s.io/job-uid": owner.uid}
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": owner.workload,
            "namespace": owner.namespace,
            "labels": labels,
            "annotations": {
                **owner.annotations,
                "kueue.x-k8s.io/job-owner-gvk": f"{API_VERSIONS[owner.kind]}, Kind={owner.kind}",
                "kueue.x-k8s.io/job-owner-name": owner.name,
            },
            "ownerReferences": [owner.reference()],
        },
        "spec": spec,
    }
