"""Pure extraction of facts and transitions from a Workload dict (as the API serves it).

Kueue keeps only the latest transition per condition type, so every observed
version of a Workload yields the transitions its conditions show *now*; the
recorder stores them under a unique (workload, type, time) key, so observing the
same version twice (replay, relist) adds nothing, and each new flip adds one row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from apps.reports.choices import Outcome, SizeClass, Transition
from informer import objects as o
from informer.objects import parse_time, preemptor_uid

# The checkpoint contract (docs/checkpoints.md): the RFC 3339 time of the newest
# checkpoint the job has written, on its Workload.
CHECKPOINT_ANNOTATIONS = ("quartermaster.io/last-checkpoint",)
GPUS_PER_NODE = 8


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
    node_selector: dict[str, str] | None = None


@dataclass(frozen=True)
class TransitionFact:
    type: str
    at: datetime
    reason: str = ""
    message: str = ""
    detail: dict = field(default_factory=dict)


def workload_facts(obj: dict) -> WorkloadFacts:
    meta = o.meta(obj)
    resources = o.gpus(obj)
    owner_kind, owner_name = o.owner(obj)
    return WorkloadFacts(
        uid=meta["uid"],
        namespace=meta.get("namespace", ""),
        name=meta.get("name", ""),
        created_at=parse_time(meta.get("creationTimestamp")),
        owner_kind=owner_kind,
        owner_name=owner_name,
        local_queue=o.queue_name(obj),
        priority=o.priority(obj),
        priority_class=o.priority_class(obj),
        pod_count=o.pod_count(obj),
        gpus=sum(resources.values()),
        gpu_resources=resources,
        node_selector=o.node_selector(obj),
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


def _fact(kind: str, condition: dict, **detail) -> TransitionFact | None:
    at = parse_time(condition.get("lastTransitionTime"))
    if at is None:
        return None
    reason, message = condition.get("reason") or "", (condition.get("message") or "")[:1000]
    return TransitionFact(kind, at, reason, message, {k: v for k, v in detail.items() if v})


def _condition_facts(obj: dict) -> list[TransitionFact | None]:
    conds = o.conditions_by_type(obj)
    facts: list[TransitionFact | None] = []
    reserved = conds.get("QuotaReserved")
    if reserved and reserved.get("status") == "True":
        facts.append(_fact(Transition.QUOTA_RESERVED, reserved, flavors=o.gpus_per_flavor(obj)))
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
    annotations = o.annotations(obj)
    facts = []
    for key in CHECKPOINT_ANNOTATIONS:
        at = parse_time(annotations.get(key))
        if at is not None:
            facts.append(TransitionFact(Transition.CHECKPOINT, at, detail={"annotation": key}))
    return facts


def extract_transitions(obj: dict) -> list[TransitionFact]:
    """Every transition this version of the Workload shows, creation included."""
    created = parse_time(o.meta(obj).get("creationTimestamp"))
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
