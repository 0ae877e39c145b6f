"""Pod manifests and statuses the simulated kubelet/job controller writes (pure functions)."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from kueuemodel import Admission, ResourceFlavor, Toleration, format_timestamp

from .owners import (
    ADMISSION_GATE,
    GROUP_COUNT_ANNOTATION,
    JOB,
    MANAGED_LABEL,
    STATEFULSET,
    WORKLOAD_ANNOTATION,
    Owner,
    pod_template_spec,
)

Obj = dict[str, Any]
DEVICES_ANNOTATION = "simcluster/gpu-devices"
_SUFFIX = "bcdfghjklmnpqrstvwxz2456789"


def job_pod_name(owner: Owner, attempt: int, index: int) -> str:
    """``<job>-<5 chars>`` like the Job controller's generateName, but reproducible."""
    digest = hashlib.sha256(f"{owner.uid}/{attempt}/{index}".encode()).digest()
    return f"{owner.name[:57]}-" + "".join(_SUFFIX[b % len(_SUFFIX)] for b in digest[:5])


def pod_names(owner: Owner, attempt: int) -> list[str]:
    if owner.kind == JOB:
        return [job_pod_name(owner, attempt, i) for i in range(owner.count)]
    if owner.kind == STATEFULSET:
        return [f"{owner.name}-{i}" for i in range(owner.count)]
    return [owner.name]


def flavor_injection(
    admission: Admission | None, flavors: dict[str, ResourceFlavor]
) -> tuple[dict[str, str], list[Obj]]:
    """nodeSelector and tolerations Kueue adds to the template on admission."""
    selector: dict[str, str] = {}
    tolerations: list[Obj] = []
    for psa in admission.pod_sets if admission else ():
        for name in sorted(set(psa.flavors.values())):
            flavor = flavors.get(name)
            if flavor:
                selector.update(flavor.node_labels)
                tolerations.extend(_toleration(t) for t in flavor.tolerations)
    return selector, tolerations


def _toleration(t: Toleration) -> Obj:
    out = {"key": t.key, "operator": t.operator, "effect": t.effect}
    if t.value:
        out["value"] = t.value
    return {k: v for k, v in out.items() if v}


def injected_spec(owner: Owner, selector: dict[str, str], tolerations: list[Obj]) -> Obj:
    spec = pod_template_spec(owner)
    if selector:
        spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), **selector}
    if tolerations:
        spec["tolerations"] = [*(spec.get("tolerations") or []), *tolerations]
    return spec


def new_pod(owner: Owner, name: str, spec: Obj, labels: dict[str, str], gated: bool = False) -> Obj:
    """A pod owned by the Job/StatefulSet (metadata and spec; status is written separately)."""
    template_meta = owner.template.get("metadata") or {}
    spec = copy.deepcopy(spec)
    if gated:
        spec["schedulingGates"] = [{"name": ADMISSION_GATE}]
    annotations = {**(template_meta.get("annotations") or {}), **owner.annotations}
    annotations[WORKLOAD_ANNOTATION] = owner.workload
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": owner.namespace,
            "labels": {**(template_meta.get("labels") or {}), **labels},
            "annotations": annotations,
            "ownerReferences": [owner.reference()],
        },
        "spec": spec,
    }


def owner_labels(owner: Owner, queue: str) -> dict[str, str]:
    if owner.kind == JOB:
        return {
            "batch.kubernetes.io/job-name": owner.name,
            "job-name": owner.name,
            "batch.kubernetes.io/controller-uid": owner.uid,
            "controller-uid": owner.uid,
            "kueue.x-k8s.io/podset": "main",
        }
    return {
        MANAGED_LABEL: "true",
        "kueue.x-k8s.io/queue-name": queue,
        "kueue.x-k8s.io/pod-group-name": owner.workload,
        "statefulset.kubernetes.io/pod-name": "",
    }


def group_annotations(owner: Owner) -> dict[str, str]:
    return {GROUP_COUNT_ANNOTATION: str(owner.count), "kueue.x-k8s.io/pod-group-serving": "true"}


def _containers(spec: Obj) -> list[str]:
    return [c.get("name", "main") for c in spec.get("containers") or ()]


def running_status(spec: Obj, start_ms: int, node: str | None) -> Obj:
    started = format_timestamp(start_ms)
    return {
        "phase": "Running",
        "hostIP": _ip(node or "", 1),
        "podIP": _ip(node or "", 2),
        "startTime": started,
        "conditions": [
            _condition(kind, "True", started)
            for kind in ("PodScheduled", "Initialized", "ContainersReady", "Ready")
        ],
        "containerStatuses": [
            {
                "name": name,
                "ready": True,
                "started": True,
                "restartCount": 0,
                **_image_ids(spec, name, started),
                "state": {"running": {"startedAt": started}},
            }
            for name in _containers(spec)
        ],
    }


def pending_status(problem: str, node_count: int, now_ms: int) -> Obj:
    message = f"0/{node_count} nodes are available: {problem}."
    condition = _condition("PodScheduled", "False", format_timestamp(now_ms))
    condition.update(reason="Unschedulable", message=message)
    return {"phase": "Pending", "conditions": [condition]}


def gated_status(now_ms: int) -> Obj:
    condition = _condition("PodScheduled", "False", format_timestamp(now_ms))
    condition.update(
        reason="SchedulingGated", message="Scheduling is blocked due to non-empty scheduling gates"
    )
    return {"phase": "Pending", "conditions": [condition]}


def succeeded_status(spec: Obj, start_ms: int, end_ms: int) -> Obj:
    started, finished = format_timestamp(start_ms), format_timestamp(end_ms)
    ready = _condition("Ready", "False", finished)
    ready["reason"] = "PodCompleted"
    return {
        "phase": "Succeeded",
        "startTime": started,
        "conditions": [_condition("PodScheduled", "True", started), ready],
        "containerStatuses": [
            {
                "name": name,
                "ready": False,
                "started": False,
                "restartCount": 0,
                **_image_ids(spec, name, started),
                "state": {
                    "terminated": {
                        "exitCode": 0,
                        "reason": "Completed",
                        "startedAt": started,
                        "finishedAt": finished,
                    }
                },
            }
            for name in _containers(spec)
        ],
    }


def _condition(kind: str, status: str, at: str) -> Obj:
    return {"type": kind, "status": status, "lastTransitionTime": at}


def _image_ids(spec: Obj, name: str, started: str) -> Obj:
    """image, imageID and containerID, which clients expect on every container status."""
    image = _image(spec, name)
    digest = hashlib.sha256(image.encode()).hexdigest()
    container = hashlib.sha256(f"{name}/{started}".encode()).hexdigest()
    return {
        "image": image,
        "imageID": f"{image}@sha256:{digest}",
        "containerID": f"containerd://{container}",
    }


def _image(spec: Obj, name: str) -> str:
    for container in spec.get("containers") or ():
        if container.get("name") == name:
            return container.get("image", "")
    return ""


def _ip(node: str, last: int) -> str:
    """A stable fake address per node (10.x.y.last)."""
    digest = hashlib.sha256(node.encode()).digest()
    return f"10.{digest[0]}.{digest[1]}.{last}"
