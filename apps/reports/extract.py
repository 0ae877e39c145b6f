"""Pure: what the recorder keeps of a Workload dict besides its transitions.

The transitions themselves come from ``informer.workload.transitions`` (what the
conditions mean is decided there): Kueue keeps only the latest transition per
condition type, so every observed version yields the ones its conditions show *now*;
the recorder stores them under a unique (workload, type, time) key, so observing the
same version twice (replay, relist) adds nothing, and each new flip adds one row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from apps.reports.choices import Outcome, SizeClass
from informer import objects as o
from informer.objects import parse_time
from informer.workload import Transition, TransitionFact

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
