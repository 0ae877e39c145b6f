"""Pure extraction of facts and transitions from a Workload dict (as the API serves it).

Kueue keeps only the latest transition per condition type, so every observed
version of a Workload yields the transitions its conditions show *now*; the
recorder stores them under a unique (workload, type, time) key, so observing the
same version twice (replay, relist) adds nothing, and each new flip adds one row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from apps.reports.choices import Outcome, SizeClass, Transition

# The checkpoint contract (docs/checkpoints.md): the RFC 3339 time of the newest
# checkpoint the job has written, on its Workload.
CHECKPOINT_ANNOTATIONS = ("quartermaster.io/last-checkpoint",)
GPUS_PER_NODE = 8
_PREEMPTOR = re.compile(r"Preempted to accommodate a workload \(UID: ([^,)\s]+)")


@dataclass(frozen=True)
class WorkloadFacts:
    """What a Workload says about itself, independent of its progress."""

    uid: str
    namespace: str
    name: str
    created_at: datetime
    owner_kind: str = ""
    owner_name: str = ""
    local_queue: str = ""
    priority: int = 0
    priority_class: str = ""
    pod_count: int = 1
    gpus: int = 0
    gpu_resources: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TransitionFact:
    type: str
    at: datetime
    reason: str = ""
    message: str = ""
    detail: dict = field(default_factory=dict)


def parse_time(text: str | None) -> datetime | None:
    """RFC 3339 (``2026-11-16T08:00:00Z``, fractions allowed) to an aware datetime."""
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def is_gpu_resource(name: str) -> bool:
    return name == "nvidia.com/gpu" or name.startswith("nvidia.com/mig-")


def _container_gpus(container: dict) -> dict[str, int]:
    resources = container.get("resources") or {}
    wanted = resources.get("requests") or resources.get("limits") or {}
    return {k: int(float(v)) for k, v in wanted.items() if is_gpu_resource(k)}


def pod_set_gpus(pod_set: dict) -> dict[str, int]:
    """GPUs of every kind one pod set asks for, summed over its pods."""
    spec = (pod_set.get("template") or {}).get("spec") or {}
    count = int(pod_set.get("count", 1))
    totals: dict[str, int] = {}
    for container in spec.get("containers") or []:
        for name, amount in _container_gpus(container).items():
            totals[name] = totals.get(name, 0) + amount * count
    return totals


def _owner(meta: dict) -> tuple[str, str]:
    """(kind, name) of the Job/StatefulSet/Pod the Workload belongs to."""
    owners = meta.get("ownerReferences") or [{}]
    annotations = meta.get("annotations") or {}
    name = owners[0].get("name") or annotations.get("kueue.x-k8s.io/job-owner-name", "")
    return owners[0].get("kind", ""), name


def workload_facts(obj: dict) -> WorkloadFacts:
    meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
    resources: dict[str, int] = {}
    for pod_set in spec.get("podSets") or []:
        for name, amount in pod_set_gpus(pod_set).items():
            resources[name] = resources.get(name, 0) + amount
    ref = spec.get("priorityClassRef") or {}
    owner_kind, owner_name = _owner(meta)
    return WorkloadFacts(
        uid=meta["uid"],
        namespace=meta.get("namespace", ""),
        name=meta.get("name", ""),
        created_at=parse_time(meta.get("creationTimestamp")),
        owner_kind=owner_kind,
        owner_name=owner_name,
        local_queue=spec.get("queueName") or "",
        priority=int(spec.get("priority") or 0),
        priority_class=ref.get("name") or spec.get("priorityClassName") or "",
        pod_count=sum(int(p.get("count", 1)) for p in spec.get("podSets") or []),
        gpus=sum(resources.values()),
        gpu_resources=resources,
    )


def size_class(gpus: int) -> str:
    """1 / 2–4 / 5–8 ("8", one node) / more than a node's 8 GPUs ("multi-node")."""
    if gpus <= 0:
        return SizeClass.NONE
    if gpus == 1:
        return SizeClass.ONE
    if gpus <= 4:
        return SizeClass.SMALL
    return SizeClass.NODE if gpus <= GPUS_PER_NODE else SizeClass.MULTI_NODE


def preemptor_uid(message: str) -> str:
    """The preemptor's UID from Kueue's "Preempted to accommodate a workload (UID: …)"."""
    match = _PREEMPTOR.search(message or "")
    return match.group(1) if match else ""


def cluster_queue(obj: dict) -> str:
    return ((obj.get("status") or {}).get("admission") or {}).get("clusterQueue") or ""


def flavor_assignment(obj: dict) -> dict[str, int]:
    """GPUs per flavor from ``status.admission`` (empty when no quota is reserved)."""
    admission = (obj.get("status") or {}).get("admission") or {}
    flavors: dict[str, int] = {}
    for assignment in admission.get("podSetAssignments") or []:
        usage = assignment.get("resourceUsage") or {}
        for resource, flavor in (assignment.get("flavors") or {}).items():
            if is_gpu_resource(resource):
                flavors[flavor] = flavors.get(flavor, 0) + int(float(usage.get(resource, 0)))
    return flavors


def _conditions(obj: dict) -> dict[str, dict]:
    return {c.get("type"): c for c in (obj.get("status") or {}).get("conditions") or []}


def _fact(kind: str, condition: dict, **detail) -> TransitionFact | None:
    at = parse_time(condition.get("lastTransitionTime"))
    if at is None:
        return None
    reason, message = condition.get("reason") or "", (condition.get("message") or "")[:1000]
    return TransitionFact(kind, at, reason, message, {k: v for k, v in detail.items() if v})


def _condition_facts(obj: dict) -> list[TransitionFact | None]:
    conds = _conditions(obj)
    facts: list[TransitionFact | None] = []
    reserved = conds.get("QuotaReserved")
    if reserved and reserved.get("status") == "True":
        facts.append(_fact(Transition.QUOTA_RESERVED, reserved, flavors=flavor_assignment(obj)))
    elif reserved and reserved.get("status") == "False":
        facts.append(_fact(Transition.PENDING, reserved))
    simple = {
        "Admitted": Transition.ADMITTED,
        "Evicted": Transition.EVICTED,
        "Requeued": Transition.REQUEUED,
        "Finished": Transition.FINISHED,
    }
    for ctype, kind in simple.items():
        cond = conds.get(ctype)
        if cond and cond.get("status") == "True":
            facts.append(_fact(kind, cond))
    preempted = conds.get("Preempted")
    if preempted and preempted.get("status") == "True":
        uid = preemptor_uid(preempted.get("message", ""))
        facts.append(_fact(Transition.PREEMPTED, preempted, preemptor_uid=uid))
    return facts


def _checkpoint_facts(obj: dict) -> list[TransitionFact]:
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    facts = []
    for key in CHECKPOINT_ANNOTATIONS:
        at = parse_time(annotations.get(key))
        if at is not None:
            facts.append(TransitionFact(Transition.CHECKPOINT, at, detail={"annotation": key}))
    return facts


def extract_transitions(obj: dict) -> list[TransitionFact]:
    """Every transition this version of the Workload shows, creation included."""
    created = parse_time((obj.get("metadata") or {}).get("creationTimestamp"))
    facts = [TransitionFact(Transition.CREATED, created)] if created else []
    facts += [f for f in _condition_facts(obj) if f is not None]
    return facts + _checkpoint_facts(obj)


def outcome_of(facts: list[TransitionFact]) -> str:
    """Outcome the current conditions imply (the recorder keeps the latest)."""
    finished = next((f for f in facts if f.type == Transition.FINISHED), None)
    if finished is not None:
        return Outcome.SUCCEEDED if finished.reason == "Succeeded" else Outcome.FAILED
    admitted = any(f.type == Transition.ADMITTED for f in facts)
    evicted_later = _latest(facts, Transition.EVICTED) > _latest(facts, Transition.ADMITTED)
    return Outcome.RUNNING if admitted and not evicted_later else Outcome.PENDING


_NEVER = datetime.min.replace(tzinfo=UTC)


def _latest(facts: list[TransitionFact], kind: str) -> datetime:
    times = [f.at for f in facts if f.type == kind]
    return max(times) if times else _NEVER
