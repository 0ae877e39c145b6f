"""Pure accessors for Workload and pod dicts, as the API server serves them.

Every feature that reads a Workload (job status, the history recorder, start-time
estimates, the live views) asks these functions, so a field Kueue moves or renames is
followed in one place. Nothing here imports Django or talks to a cluster.
"""

from __future__ import annotations

import re
from datetime import datetime

from kueuemodel import QuantityError, parse_milli

# Kueue's annotations naming the object a Workload belongs to, when it has no ownerReference.
OWNER_NAME = "kueue.x-k8s.io/job-owner-name"
OWNER_GVK = "kueue.x-k8s.io/job-owner-gvk"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
# Kueue: "Preempted to accommodate a workload (UID: <uid>, JobUID: …) due to …".
_PREEMPTOR_UID = re.compile(r"Preempted to accommodate a workload \(UID: ([^,)\s]+)")


def meta(obj: dict | None) -> dict:
    return (obj or {}).get("metadata") or {}


def spec(obj: dict | None) -> dict:
    return (obj or {}).get("spec") or {}


def status(obj: dict | None) -> dict:
    return (obj or {}).get("status") or {}


def uid(obj: dict) -> str:
    return meta(obj).get("uid") or ""


def namespace_name(obj: dict) -> tuple[str, str]:
    return meta(obj).get("namespace", ""), meta(obj).get("name", "")


def key(obj: dict) -> str:
    """``namespace/name``, the way Kueue's messages and our caches name a Workload."""
    return "/".join(namespace_name(obj))


def labels(obj: dict) -> dict:
    return meta(obj).get("labels") or {}


def annotations(obj: dict) -> dict:
    return meta(obj).get("annotations") or {}


def parse_time(text: str | None) -> datetime | None:
    """RFC 3339 (``2026-11-16T08:00:00Z``, fractions allowed) to an aware datetime, or None."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


# ----- conditions ---------------------------------------------------------------------


def condition(obj: dict | None, kind: str) -> dict | None:
    for cond in status(obj).get("conditions") or ():
        if cond.get("type") == kind:
            return cond
    return None


def conditions_by_type(obj: dict | None) -> dict[str, dict]:
    return {c.get("type"): c for c in status(obj).get("conditions") or ()}


def is_true(obj: dict | None, kind: str) -> bool:
    cond = condition(obj, kind)
    return bool(cond and cond.get("status") == "True")


def transition_time(cond: dict | None) -> datetime | None:
    return parse_time((cond or {}).get("lastTransitionTime"))


def is_reserved(workload: dict | None) -> bool:
    """Kueue reserved quota for it (``QuotaReserved``); admission may still wait on checks."""
    return is_true(workload, "QuotaReserved")


def is_admitted(workload: dict | None) -> bool:
    return is_true(workload, "Admitted")


def is_evicted(workload: dict | None) -> bool:
    return is_true(workload, "Evicted")


def is_preempted(workload: dict | None) -> bool:
    return is_true(workload, "Preempted")


def is_finished(workload: dict | None) -> bool:
    return is_true(workload, "Finished")


def preemptor_uid(message: str | None) -> str:
    """The preempting Workload's UID named in a preemption message, or ""."""
    match = _PREEMPTOR_UID.search(message or "")
    return match.group(1) if match else ""


def preemptor_uids(workload: dict) -> set[str]:
    """UIDs of the Workloads that preempted this one, as far as its conditions tell."""
    found = preemptor_uid((condition(workload, "Preempted") or {}).get("message"))
    return {found} if found else set()


# ----- queue, priority, owner ---------------------------------------------------------------


def queue_name(workload: dict) -> str:
    """The LocalQueue it was submitted to."""
    return spec(workload).get("queueName") or labels(workload).get(QUEUE_LABEL) or ""


def cluster_queue(workload: dict) -> str:
    """The ClusterQueue that reserved its quota ("" while none has)."""
    return (status(workload).get("admission") or {}).get("clusterQueue") or ""


def priority(workload: dict) -> int:
    return int(spec(workload).get("priority") or 0)


def priority_class(workload: dict) -> str:
    ref = spec(workload).get("priorityClassRef") or {}
    return ref.get("name") or spec(workload).get("priorityClassName") or ""


def owner(obj: dict) -> tuple[str, str]:
    """(kind, name) of the object's controller: the Job or StatefulSet behind a Workload."""
    for ref in meta(obj).get("ownerReferences") or ():
        if ref.get("controller", True):
            return ref.get("kind", ""), ref.get("name", "")
    notes = annotations(obj)
    kind = (notes.get(OWNER_GVK) or "").rsplit("Kind=", 1)[-1]
    return kind, notes.get(OWNER_NAME, "")


def owner_key(workload: dict) -> tuple[str, str, str]:
    """(namespace, owner kind, owner name) of a Workload."""
    return (meta(workload).get("namespace", ""), *owner(workload))


# ----- pod sets and flavors --------------------------------------------------------------


def is_gpu_resource(name: str) -> bool:
    return name == "nvidia.com/gpu" or name.startswith("nvidia.com/mig-")


def device_count(value: str | int, resource: str) -> int:
    """A whole count of a device resource (GPUs, MIG slices) from its quantity.

    The API server only accepts whole numbers for extended resources; anything else is
    refused with the rule it breaks, never rounded or read as 0.
    """
    try:
        milli = parse_milli(value)
    except QuantityError as exc:
        raise QuantityError(f"{resource}: {value!r} {exc}") from None
    if milli % 1000 or milli < 0:
        raise QuantityError(f'{resource}: {value!r} must be a whole number of devices (e.g. "2")')
    return milli // 1000


def _container_gpus(container: dict) -> dict[str, int]:
    resources = container.get("resources") or {}
    wanted = resources.get("requests") or resources.get("limits") or {}
    return {k: device_count(v, k) for k, v in wanted.items() if is_gpu_resource(k)}


def pod_set_gpus(pod_set: dict) -> dict[str, int]:
    """GPUs of every kind one pod set asks for, summed over its pods."""
    pod_spec = (pod_set.get("template") or {}).get("spec") or {}
    count = int(pod_set.get("count", 1))
    totals: dict[str, int] = {}
    for container in pod_spec.get("containers") or ():
        for name, amount in _container_gpus(container).items():
            totals[name] = totals.get(name, 0) + amount * count
    return totals


def gpus(workload: dict) -> dict[str, int]:
    """GPUs of every kind the whole Workload asks for."""
    totals: dict[str, int] = {}
    for pod_set in spec(workload).get("podSets") or ():
        for name, amount in pod_set_gpus(pod_set).items():
            totals[name] = totals.get(name, 0) + amount
    return totals


def pod_count(workload: dict) -> int:
    return sum(int(p.get("count", 1)) for p in spec(workload).get("podSets") or ())


def node_selector(workload: dict) -> dict[str, str] | None:
    """The nodeSelector its pods ask for, over all podSets ({}: none).

    None when a podSet also requires node affinity, which a selector cannot say:
    the flavors it could use are then unknown.
    """
    selector: dict[str, str] = {}
    for pod_set in spec(workload).get("podSets") or ():
        pod_spec = (pod_set.get("template") or {}).get("spec") or {}
        affinity = (pod_spec.get("affinity") or {}).get("nodeAffinity") or {}
        if affinity.get("requiredDuringSchedulingIgnoredDuringExecution"):
            return None
        selector.update(pod_spec.get("nodeSelector") or {})
    return selector


def pod_set_assignments(workload: dict) -> list[dict]:
    """Kueue's admission, one entry per podSet (empty while no quota is reserved)."""
    return list((status(workload).get("admission") or {}).get("podSetAssignments") or ())


def flavors_by_pod_set(workload: dict) -> dict[str, dict[str, str]]:
    """podSet name → {resource: flavor} of the admission."""
    return {a.get("name", ""): dict(a.get("flavors") or {}) for a in pod_set_assignments(workload)}


def gpus_per_flavor(workload: dict) -> dict[str, int]:
    """GPUs admitted per flavor, summed over podSets (empty while no quota is reserved)."""
    flavors: dict[str, int] = {}
    for assignment in pod_set_assignments(workload):
        usage = assignment.get("resourceUsage") or {}
        for resource, flavor in (assignment.get("flavors") or {}).items():
            if is_gpu_resource(resource):
                used = device_count(usage.get(resource, 0), resource)
                flavors[flavor] = flavors.get(flavor, 0) + used
    return flavors


# ----- pods --------------------------------------------------------------------------------


def pod_phase(pod: dict) -> str:
    return status(pod).get("phase") or ""


def pod_ready(pod: dict) -> bool:
    return pod_phase(pod) == "Running" and is_true(pod, "Ready")


def termination_messages(pod: dict) -> list[str]:
    """What the pod's containers wrote to their termination-message file, as the kubelet
    copies it into ``state.terminated`` (this run) or ``lastState.terminated`` (the last)."""
    statuses = status(pod).get("containerStatuses") or []
    found = [
        ((s.get(which) or {}).get("terminated") or {}).get("message")
        for s in statuses
        for which in ("state", "lastState")
    ]
    return [m for m in found if m]


def pods_of(pods: list[dict], namespace: str, label: str, value: str) -> list[dict]:
    """The pods of ``namespace`` whose ``label`` is ``value``."""
    return [
        p for p in pods if meta(p).get("namespace") == namespace and labels(p).get(label) == value
    ]
