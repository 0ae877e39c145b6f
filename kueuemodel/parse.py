"""Turn plain Kubernetes/Kueue manifests (dicts) into ``model`` objects.

Only fields that change scheduling are read; unknown fields are ignored so any
manifest that ``kubectl apply`` would accept can be fed in.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from . import model as m
from .admission_usage import USAGE_BASED
from .clock import parse_duration, parse_timestamp
from .quantity import parse_milli
from .topology import PREFERRED_ANNOTATION as PREFERRED_TOPOLOGY
from .topology import REQUIRED_ANNOTATION as REQUIRED_TOPOLOGY

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
DURATION_ANNOTATION = "simcluster/duration"
WPC_GROUP = "kueue.x-k8s.io"

Obj = Mapping[str, Any]


def _meta(obj: Obj) -> Obj:
    return obj.get("metadata") or {}


def _spec(obj: Obj) -> Obj:
    return obj.get("spec") or {}


def _weight(spec: Obj) -> float:
    weight = (spec.get("fairSharing") or {}).get("weight")
    return 1.0 if weight is None else parse_milli(weight) / 1000


def parse_taint(raw: Obj) -> m.Taint:
    return m.Taint(raw.get("key", ""), str(raw.get("value", "")), raw.get("effect", ""))


def parse_toleration(raw: Obj) -> m.Toleration:
    operator = raw.get("operator") or ("Exists" if not raw.get("key") else "Equal")
    return m.Toleration(
        raw.get("key", ""), operator, str(raw.get("value", "")), raw.get("effect", "")
    )


def parse_flavor(obj: Obj) -> m.ResourceFlavor:
    spec = _spec(obj)
    return m.ResourceFlavor(
        name=_meta(obj)["name"],
        node_labels=dict(spec.get("nodeLabels") or {}),
        node_taints=tuple(parse_taint(t) for t in spec.get("nodeTaints") or ()),
        tolerations=tuple(parse_toleration(t) for t in spec.get("tolerations") or ()),
        topology_name=spec.get("topologyName") or "",
    )


def parse_topology_levels(obj: Obj) -> tuple[str, ...]:
    """A Topology's level node label keys, widest first."""
    return tuple(lv.get("nodeLabel", "") for lv in _spec(obj).get("levels") or ())


def _optional_quantity(raw: Obj, key: str) -> int | None:
    return None if raw.get(key) is None else parse_milli(raw[key])


def parse_resource_groups(groups: Any) -> tuple[m.ResourceGroup, ...]:
    parsed = []
    for group in groups or ():
        flavors = tuple(
            m.FlavorQuotas(
                name=flavor["name"],
                resources={
                    res["name"]: m.ResourceQuota(
                        nominal=parse_milli(res.get("nominalQuota", 0)),
                        borrowing_limit=_optional_quantity(res, "borrowingLimit"),
                        lending_limit=_optional_quantity(res, "lendingLimit"),
                    )
                    for res in flavor.get("resources") or ()
                },
            )
            for flavor in group.get("flavors") or ()
        )
        parsed.append(m.ResourceGroup(tuple(group.get("coveredResources") or ()), flavors))
    return tuple(parsed)


def parse_selector(raw: Obj | None) -> m.LabelSelector | None:
    if raw is None:
        return None
    expressions = tuple(
        (e["key"], e["operator"], tuple(e.get("values") or ()))
        for e in raw.get("matchExpressions") or ()
    )
    return m.LabelSelector(dict(raw.get("matchLabels") or {}), expressions)


def parse_preemption(raw: Obj) -> m.Preemption:
    borrow = raw.get("borrowWithinCohort") or {}
    return m.Preemption(
        within_cluster_queue=raw.get("withinClusterQueue") or m.NEVER,
        reclaim_within_cohort=raw.get("reclaimWithinCohort") or m.NEVER,
        borrow_within_cohort=borrow.get("policy") or m.NEVER,
        max_priority_threshold=borrow.get("maxPriorityThreshold"),
    )


def parse_fungibility(raw: Obj) -> m.Fungibility:
    return m.Fungibility(
        when_can_borrow=_v1beta1_fungibility(raw.get("whenCanBorrow"), m.MAY_STOP),
        when_can_preempt=_v1beta1_fungibility(raw.get("whenCanPreempt"), m.TRY_NEXT),
        preference=raw.get("preference") or m.BORROWING_OVER_PREEMPTION,
    )


def _v1beta1_fungibility(value: str | None, default: str) -> str:
    # v1beta1 spelled MayStopSearch as "Borrow" / "Preempt".
    if value in ("Borrow", "Preempt"):
        return m.MAY_STOP
    return value or default


def parse_cluster_queue(obj: Obj) -> m.ClusterQueue:
    spec = _spec(obj)
    return m.ClusterQueue(
        name=_meta(obj)["name"],
        resource_groups=parse_resource_groups(spec.get("resourceGroups")),
        cohort=spec.get("cohortName") or spec.get("cohort") or None,
        queueing_strategy=spec.get("queueingStrategy") or m.BEST_EFFORT_FIFO,
        preemption=parse_preemption(spec.get("preemption") or {}),
        fungibility=parse_fungibility(spec.get("flavorFungibility") or {}),
        stop_policy=spec.get("stopPolicy") or m.STOP_NONE,
        weight=_weight(spec),
        selector=parse_selector(spec.get("namespaceSelector")),
        admission_fair_sharing=(spec.get("admissionScope") or {}).get("admissionMode")
        == USAGE_BASED,
    )


def parse_cohort(obj: Obj) -> m.Cohort:
    spec = _spec(obj)
    return m.Cohort(
        name=_meta(obj)["name"],
        parent=spec.get("parentName") or spec.get("parent") or None,
        resource_groups=parse_resource_groups(spec.get("resourceGroups")),
        weight=_weight(spec),
    )


def parse_local_queue(obj: Obj) -> m.LocalQueue:
    meta, spec = _meta(obj), _spec(obj)
    return m.LocalQueue(
        namespace=meta.get("namespace") or "default",
        name=meta["name"],
        cluster_queue=spec.get("clusterQueue", ""),
        stop_policy=spec.get("stopPolicy") or m.STOP_NONE,
        weight=_weight(spec),
    )


def reported_fair_sharing(obj: Obj) -> Obj | None:
    """A LocalQueue's ``status.fairSharing.admissionFairSharingStatus``, as Kueue wrote it
    (``consumedResources``, ``lastUpdate``), or None when it reports none."""
    fair = ((obj.get("status") or {}).get("fairSharing") or {}).get("admissionFairSharingStatus")
    return fair if isinstance(fair, dict) else None


def parse_reported_usage(obj: Obj) -> tuple[dict[str, int], int] | None:
    """A LocalQueue's reported usage in milli-units and the time of its last fold (epoch
    ms), or None when it reports none or no time."""
    fair = reported_fair_sharing(obj)
    if fair is None or not fair.get("lastUpdate"):
        return None
    consumed = {name: parse_milli(q) for name, q in (fair.get("consumedResources") or {}).items()}
    return consumed, parse_timestamp(fair["lastUpdate"])


def parse_node(obj: Obj) -> m.Node:
    status, spec = obj.get("status") or {}, _spec(obj)
    resources = status.get("allocatable") or status.get("capacity") or {}
    return m.Node(
        name=_meta(obj)["name"],
        labels=dict(_meta(obj).get("labels") or {}),
        allocatable={name: parse_milli(v) for name, v in resources.items()},
        taints=tuple(parse_taint(t) for t in spec.get("taints") or ()),
        unschedulable=bool(spec.get("unschedulable")),
    )


def pod_requests(pod_spec: Obj) -> dict[str, int]:
    """Effective pod request: max(sum of containers, largest init container)."""
    total: dict[str, int] = {}
    for container in pod_spec.get("containers") or ():
        for res, amount in _container_requests(container).items():
            total[res] = total.get(res, 0) + amount
    for container in pod_spec.get("initContainers") or ():
        for res, amount in _container_requests(container).items():
            total[res] = max(total.get(res, 0), amount)
    return total


def _container_requests(container: Obj) -> dict[str, int]:
    resources = container.get("resources") or {}
    # Limits stand in for requests when requests are absent, as in Kubernetes.
    merged = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    return {name: parse_milli(v) for name, v in merged.items()}


def parse_pod_set(raw: Obj) -> m.PodSet:
    template = raw.get("template") or {}
    pod_spec = template.get("spec") or {}
    annotations = (template.get("metadata") or {}).get("annotations") or {}
    return m.PodSet(
        name=raw.get("name") or "main",
        count=int(raw.get("count", 1)),
        per_pod=pod_requests(pod_spec),
        node_selector=dict(pod_spec.get("nodeSelector") or {}),
        tolerations=tuple(parse_toleration(t) for t in pod_spec.get("tolerations") or ()),
        # Kueue copies the annotation into topologyRequest; a Job's template has only the former.
        required_topology=(raw.get("topologyRequest") or {}).get("required")
        or annotations.get(REQUIRED_TOPOLOGY, ""),
        preferred_topology=(raw.get("topologyRequest") or {}).get("preferred")
        or annotations.get(PREFERRED_TOPOLOGY, ""),
    )


def workload_priority(obj: Obj, priority_classes: Mapping[str, int]) -> int:
    """Explicit ``spec.priority`` wins; else the referenced class; else 0."""
    spec = _spec(obj)
    if spec.get("priority") is not None:
        return int(spec["priority"])
    ref = spec.get("priorityClassRef") or {}
    name = ref.get("name") or spec.get("priorityClassName")
    if name and ref.get("group", WPC_GROUP) == WPC_GROUP:
        return priority_classes.get(name, 0)
    return priority_classes.get("default", 0)


def stable_uid(namespace: str, name: str) -> str:
    """UID for objects that arrive without one; deterministic across runs."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"simcluster/{namespace}/{name}"))


def parse_admission(raw: Obj | None) -> m.Admission | None:
    if not raw:
        return None
    pod_sets = []
    for psa in raw.get("podSetAssignments") or ():
        flavors = dict(psa.get("flavors") or {})
        usage = {
            (flavors[res], res): parse_milli(v)
            for res, v in (psa.get("resourceUsage") or {}).items()
            if res in flavors
        }
        pod_sets.append(
            m.PodSetAssignment(psa.get("name", "main"), flavors, usage, int(psa.get("count", 1)))
        )
    return m.Admission(raw["clusterQueue"], tuple(pod_sets))


def condition_true(obj: Obj, kind: str) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or ()
    return any(c.get("type") == kind and c.get("status") == "True" for c in conditions)


def parse_workload(
    obj: dict[str, Any], priority_classes: Mapping[str, int], now_ms: int = 0
) -> m.Workload:
    """Build the scheduler record; ``obj`` is kept (not copied) for status writes."""
    meta, spec = _meta(obj), _spec(obj)
    namespace = meta.get("namespace") or "default"
    obj.setdefault("metadata", {}).setdefault("namespace", namespace)
    created = meta.get("creationTimestamp")
    duration = (meta.get("annotations") or {}).get(DURATION_ANNOTATION)
    reserved = condition_true(obj, "QuotaReserved")
    return m.Workload(
        namespace=namespace,
        name=meta["name"],
        uid=meta.get("uid") or stable_uid(namespace, meta["name"]),
        queue_name=spec.get("queueName") or (meta.get("labels") or {}).get(QUEUE_LABEL, ""),
        priority=workload_priority(obj, priority_classes),
        created_ms=parse_timestamp(created) if created else now_ms,
        pod_sets=tuple(parse_pod_set(ps) for ps in spec.get("podSets") or ()),
        obj=obj,
        duration_ms=parse_duration(duration) if duration else None,
        active=spec.get("active", True) is not False,
        admission=parse_admission((obj.get("status") or {}).get("admission")) if reserved else None,
        finished=condition_true(obj, "Finished"),
        # Evicted while still reserved: Kueue's state while the evicted pods stop.
        stopping=reserved and condition_true(obj, "Evicted"),
    )


def job_to_workload(job: Obj, priority_classes: Mapping[str, int]) -> dict[str, Any]:
    """The Workload Kueue's batch/v1 Job integration would create for ``job``."""
    meta, spec = _meta(job), _spec(job)
    labels = meta.get("labels") or {}
    template = spec.get("template") or {}
    parallelism = int(spec.get("parallelism", 1))
    completions = spec.get("completions")
    count = min(parallelism, int(completions)) if completions is not None else parallelism
    workload_spec: dict[str, Any] = {
        "queueName": labels.get(QUEUE_LABEL, ""),
        "podSets": [{"name": "main", "count": count, "template": template}],
    }
    priority_class = labels.get(PRIORITY_LABEL)
    if priority_class:
        workload_spec["priorityClassRef"] = {
            "group": WPC_GROUP,
            "kind": "WorkloadPriorityClass",
            "name": priority_class,
        }
        workload_spec["priority"] = priority_classes.get(priority_class, 0)
    name = meta["name"]
    namespace = meta.get("namespace") or "default"
    job_uid = meta.get("uid") or stable_uid(namespace, "job/" + name)
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": f"job-{name}-{job_uid.replace('-', '')[:5]}",
            "namespace": namespace,
            "creationTimestamp": meta.get("creationTimestamp"),
            "labels": {"kueue.x-k8s.io/job-uid": job_uid},
            "annotations": dict(meta.get("annotations") or {}),
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": name,
                    "uid": job_uid,
                    "controller": True,
                }
            ],
        },
        "spec": workload_spec,
    }
