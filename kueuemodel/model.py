"""Typed, parsed views of the Kueue and core objects the engine reasons about.

Specs are frozen: they change only when a manifest is re-applied. ``Workload``
is the one mutable record; it keeps the original manifest in ``obj`` so the
status writer can update it in place the way Kueue patches Workload status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FlavorResource = tuple[str, str]
"""A quota cell: (flavor name, resource name)."""

Usage = dict[FlavorResource, int]
"""Milli-unit amounts per quota cell."""

NEVER = "Never"
LOWER_PRIORITY = "LowerPriority"
LOWER_OR_NEWER_EQUAL = "LowerOrNewerEqualPriority"
ANY = "Any"
MAY_STOP = "MayStopSearch"
TRY_NEXT = "TryNextFlavor"
BORROWING_OVER_PREEMPTION = "BorrowingOverPreemption"
PREEMPTION_OVER_BORROWING = "PreemptionOverBorrowing"
STRICT_FIFO = "StrictFIFO"
BEST_EFFORT_FIFO = "BestEffortFIFO"
STOP_NONE, HOLD, HOLD_AND_DRAIN = "None", "Hold", "HoldAndDrain"


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str
    operator: str
    value: str
    effect: str

    def tolerates(self, taint: Taint) -> bool:
        """Kubernetes toleration matching: empty key with Exists matches all."""
        if self.effect and self.effect != taint.effect:
            return False
        if not self.key:
            return self.operator == "Exists"
        if self.key != taint.key:
            return False
        return self.operator == "Exists" or self.value == taint.value


@dataclass(frozen=True, slots=True)
class ResourceFlavor:
    name: str
    node_labels: dict[str, str] = field(default_factory=dict)
    node_taints: tuple[Taint, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    topology_name: str = ""
    topology_levels: tuple[str, ...] = ()
    """The node label keys of its Topology's levels, widest first (from the Topology)."""


@dataclass(frozen=True, slots=True)
class ResourceQuota:
    nominal: int
    borrowing_limit: int | None = None
    lending_limit: int | None = None


@dataclass(frozen=True, slots=True)
class FlavorQuotas:
    name: str
    resources: dict[str, ResourceQuota]


@dataclass(frozen=True, slots=True)
class ResourceGroup:
    covered: tuple[str, ...]
    flavors: tuple[FlavorQuotas, ...]


@dataclass(frozen=True, slots=True)
class Preemption:
    within_cluster_queue: str = NEVER
    reclaim_within_cohort: str = NEVER
    borrow_within_cohort: str = NEVER
    max_priority_threshold: int | None = None


@dataclass(frozen=True, slots=True)
class Fungibility:
    when_can_borrow: str = MAY_STOP
    when_can_preempt: str = TRY_NEXT
    preference: str = BORROWING_OVER_PREEMPTION


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """``None`` selector objects are represented by ``ClusterQueue.selector=None``."""

    match_labels: dict[str, str]
    expressions: tuple[tuple[str, str, tuple[str, ...]], ...]

    def matches(self, labels: dict[str, str]) -> bool:
        if any(labels.get(k) != v for k, v in self.match_labels.items()):
            return False
        return all(_expression_matches(expr, labels) for expr in self.expressions)


def _expression_matches(expr: tuple[str, str, tuple[str, ...]], labels: dict[str, str]) -> bool:
    key, operator, values = expr
    if operator == "In":
        return labels.get(key) in values
    if operator == "NotIn":
        return labels.get(key) not in values
    if operator == "Exists":
        return key in labels
    return key not in labels  # DoesNotExist


@dataclass(frozen=True, slots=True)
class ClusterQueue:
    name: str
    resource_groups: tuple[ResourceGroup, ...]
    cohort: str | None = None
    queueing_strategy: str = BEST_EFFORT_FIFO
    preemption: Preemption = Preemption()
    fungibility: Fungibility = Fungibility()
    stop_policy: str = STOP_NONE
    weight: float = 1.0
    selector: LabelSelector | None = None
    admission_fair_sharing: bool = False
    """``admissionScope.admissionMode: UsageBasedAdmissionFairSharing`` (``admission_order``)."""


@dataclass(frozen=True, slots=True)
class Cohort:
    name: str
    parent: str | None = None
    resource_groups: tuple[ResourceGroup, ...] = ()
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class LocalQueue:
    namespace: str
    name: str
    cluster_queue: str
    stop_policy: str = STOP_NONE
    weight: float = 1.0
    """``spec.fairSharing.weight``: AdmissionFairSharing divides the queue's usage by it."""


@dataclass(frozen=True, slots=True)
class PodSet:
    name: str
    count: int
    per_pod: dict[str, int]
    node_selector: dict[str, str]
    tolerations: tuple[Toleration, ...]
    required_topology: str = ""
    """Kueue TAS: the node label key of the level all pods must share ('' for none)."""
    preferred_topology: str = ""
    """Kueue TAS: the level the pods should share if they fit, else a wider one ('' for none)."""

    def total(self) -> dict[str, int]:
        return {res: amount * self.count for res, amount in self.per_pod.items() if amount}


@dataclass(frozen=True, slots=True)
class PodSetAssignment:
    name: str
    flavors: dict[str, str]
    usage: Usage
    count: int


@dataclass(frozen=True, slots=True)
class Admission:
    cluster_queue: str
    pod_sets: tuple[PodSetAssignment, ...]
    total: Usage = field(init=False, compare=False, repr=False)
    """Summed over podSets once: preemption reads it for every candidate."""

    def __post_init__(self) -> None:
        total: Usage = {}
        for assignment in self.pod_sets:
            for cell, amount in assignment.usage.items():
                total[cell] = total.get(cell, 0) + amount
        object.__setattr__(self, "total", total)

    def usage(self) -> Usage:
        """Quota this admission holds per (flavor, resource); treat as read-only."""
        return self.total


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    labels: dict[str, str]
    allocatable: dict[str, int]
    taints: tuple[Taint, ...]
    unschedulable: bool = False


@dataclass(slots=True, eq=False)
class Workload:
    """A Workload plus the scheduler's bookkeeping for it."""

    namespace: str
    name: str
    uid: str
    queue_name: str
    priority: int
    created_ms: int
    pod_sets: tuple[PodSet, ...]
    obj: dict[str, Any]
    duration_ms: int | None = None
    active: bool = True
    admission: Admission | None = None
    reserved_ms: int | None = None
    finished: bool = False
    evictions: int = 0
    placement_problem: str | None = None
    started_ms: int | None = None
    """When its pods last started running (None while not running)."""
    enqueued_ms: int = 0
    shape: int | None = None
    """Cached scheduling signature (``queues.shape_of``); equal shapes get equal answers."""
    stopping: bool = False
    """Evicted, pods still stopping: it keeps its quota (and nodes) until they are gone."""
    key: str = ""
    """``namespace/name``; stored because the hot loops read it constantly."""

    def __post_init__(self) -> None:
        self.key = f"{self.namespace}/{self.name}"

    def order_key(self) -> tuple[int, int, str]:
        """Queue order: higher priority, then older, then UID."""
        return (-self.priority, self.created_ms, self.uid)
