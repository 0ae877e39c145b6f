"""One Kueue scheduling cycle over one cohort tree ("domain").

Cohort trees share no quota, so each is scheduled on its own; within a tree,
every ClusterQueue offers its head, heads are ordered (classic sort or the
fair-sharing tournament) and each is admitted, used to issue preemptions, or
sent back to wait. Victims keep their quota until their pods have stopped
(``lifecycle.evict``), so a preemptor is admitted at a later instant, as with
Kueue's asynchronous preemption.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from . import admission_order, fairsharing, lifecycle, placement, status, topology
from . import model as m
from .classical import classic_targets
from .flavors import (
    FIT,
    NO_FIT,
    PREEMPT,
    WAITING_FOR_QUOTA,
    Assignment,
    FlavorPlan,
    assign_flavors,
    plan_flavors,
)
from .latency import PENDING
from .preemption import (
    Target,
    level_after,
    may_find_victims,
    restore,
    set_aside,
    victim_priority_bound,
)
from .queues import PendingQueue, shape_of
from .quota import QuotaNode, add_usage, available, fits, remove_usage
from .state import Cluster

WAITING_FOR_PREEMPTED = "WaitingForPreemptedWorkloads"
NO_LONGER_FITS = "Workload no longer fits after processing another workload"
OVERLAPPING_TARGETS = "Workload has overlapping preemption targets with another workload"


@dataclass(slots=True)
class Entry:
    wl: m.Workload
    cq: m.ClusterQueue
    node: QuotaNode
    assignment: Assignment
    targets: list[Target] = field(default_factory=list)


@dataclass(slots=True)
class CycleMemo:
    """Answers for identical heads while the tree's usage has not changed."""

    failures: dict[tuple, tuple[int, Assignment]] = field(default_factory=dict)
    targets: dict[tuple, tuple[int, list[Target]]] = field(default_factory=dict)
    """Victim searches per (queue, shape, request): flavor assignment's oracle
    and the entry itself ask the same question at the same tree version."""


def run_cycle(cluster: Cluster, leaves: list[QuotaNode], memo: CycleMemo) -> bool:
    """Schedule one cycle; return whether it changed anything (admitted, evicted, parked).

    A cycle that only re-finds what the last one found ("no longer fits", a
    preemptor still waiting for its victims' pods) changes nothing: the next
    one would repeat it, so the instant has settled.
    """
    entries = []
    for node in leaves:
        if admission_order.refresh(cluster, node.name):
            cluster.queues[node.name].resort()
        wl = _skip_known_failures(cluster, node, memo)
        if wl is not None:
            entries.append(evaluate(cluster, wl, node, memo))
    if not entries:
        return False
    cycle = _Cycle()
    changed = False
    for entry in order_entries(cluster, entries):
        changed |= _process(cluster, entry, cycle)
    for node, usage in cycle.reservations:
        remove_usage(node, usage)
    return changed


@dataclass(slots=True)
class _Cycle:
    """Per-cycle side effects of preemption.

    A preemptor's request is held in the tree until the cycle ends so that the
    quota its victims free is not taken by a later head in the same cycle. Every
    later head is judged as if the cycle's victims were gone, as Kueue does.
    """

    reservations: list[tuple[QuotaNode, m.Usage]] = field(default_factory=list)
    preempted: dict[str, Target] = field(default_factory=dict)


def _skip_known_failures(cluster: Cluster, node: QuotaNode, memo: CycleMemo) -> m.Workload | None:
    """Park heads whose twin already failed on this exact tree state."""
    queue = cluster.queues[node.name]
    cq = cluster.cluster_queues[node.name]
    version = node.root().version
    while (wl := queue.head()) is not None and cq.queueing_strategy != m.STRICT_FIFO:
        known = memo.failures.get((node.name, shape_of(wl, cq)))
        if not known or known[0] != version or known[1].reserve is not None:
            return wl
        failed = known[1]
        cluster.status_writer.pending(wl, failed.reason, failed.message, cluster.now_ms)
        _park_head(cluster, queue, failed.reason, failed.message)
    return wl


def _park_head(cluster: Cluster, queue: PendingQueue, reason: str, message: status.Text) -> None:
    """Park the head's bucket; unpaced, its twins get the head's pending status too.

    Kueue v0.17 (no equivalence hashing) evaluates each twin in the next cycles of
    the same instant and writes the same answer; with hashing (v0.18, which a paced
    run may model) the twins are moved without a status patch.
    """
    if cluster.writes is None and cluster.status_writer.writes:
        for twin in queue.twins_of_head():
            cluster.status_writer.pending(twin, reason, message, cluster.now_ms)
    queue.park_head(reason, message)


def evaluate(cluster: Cluster, wl: m.Workload, node: QuotaNode, memo: CycleMemo) -> Entry:
    cq = cluster.cluster_queues[node.name]
    key = (node.name, shape_of(wl, cq))
    known = memo.failures.get(key)
    if known and known[0] == node.root().version:
        return Entry(wl, cq, node, known[1])
    assignment = assign_flavors(
        _plan(cluster, key, wl, cq, node),
        cq,
        node,
        _oracle(cluster, wl, cq, node, memo),
        bool(cluster.fair_sharing),
    )
    entry = Entry(wl, cq, node, assignment)
    if assignment.mode == FIT and (no_room := topology_misfit(cluster, wl, assignment)):
        # Not memoised: the answer depends on free node capacity, not the quota tree.
        entry.assignment = Assignment(NO_FIT, reason=topology.NO_FIT_REASON, message=no_room)
        return entry
    if assignment.mode == PREEMPT:
        usage_key = tuple(sorted(assignment.usage.items()))
        entry.targets = _memo_targets(cluster, wl, cq, node, assignment.usage, usage_key, memo)
        if not entry.targets:
            entry.assignment = Assignment(
                NO_FIT, reason=WAITING_FOR_QUOTA, message=_shortage(node, assignment)
            )
    if entry.assignment.mode == NO_FIT:
        memo.failures[key] = (node.root().version, entry.assignment)
    return entry


def _plan(
    cluster: Cluster, key: tuple, wl: m.Workload, cq: m.ClusterQueue, node: QuotaNode
) -> FlavorPlan:
    plan = cluster.flavor_plans.get(key)
    if plan is None:
        plan = cluster.flavor_plans[key] = plan_flavors(wl, cq, node, cluster.flavors)
    return plan


def find_targets(
    cluster: Cluster, wl: m.Workload, cq: m.ClusterQueue, node: QuotaNode, usage: m.Usage
) -> list[Target]:
    census = cluster.census.get(node.root().name, {})
    if not may_find_victims(victim_priority_bound(wl, cq), usage, census):
        return []
    # Kueue orders victims of one queue by their LocalQueue's usage too, busiest first.
    usage_of = admission_order.order_key(cluster) if admission_order.uses_it(cluster, cq) else None
    if cluster.fair_sharing:
        strategies = cluster.fair_sharing.strategies
        return fairsharing.fair_targets(
            wl, cq, node, usage, cluster.by_priority, strategies, usage_of
        )
    return classic_targets(wl, cq, node, usage, cluster.by_priority, usage_of)


def _memo_targets(
    cluster: Cluster,
    wl: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    usage: m.Usage,
    usage_key: tuple,
    memo: CycleMemo,
) -> list[Target]:
    version = node.root().version
    key = (node.name, shape_of(wl, cq), usage_key)
    known = memo.targets.get(key)
    if known is not None and known[0] == version:
        return known[1]
    targets = find_targets(cluster, wl, cq, node, usage)
    memo.targets[key] = (version, targets)
    return targets


def _oracle(cluster: Cluster, wl: m.Workload, cq: m.ClusterQueue, node: QuotaNode, memo: CycleMemo):
    def can_preempt(usage: m.Usage, usage_key: tuple) -> int | None:
        census = cluster.census.get(node.root().name, {})
        if not may_find_victims(victim_priority_bound(wl, cq), usage, census):
            return None  # the usual answer, without building the search memo's key
        targets = _memo_targets(cluster, wl, cq, node, usage, usage_key, memo)
        if not targets:
            return None
        victims = [(cluster.cq_nodes[t.cluster_queue], t.victim.admission.total) for t in targets]
        return level_after(node, usage, victims)

    return can_preempt


def _shortage(node: QuotaNode, assignment: Assignment) -> str:
    parts = []
    for (flavor, resource), amount in (assignment.usage or {}).items():
        missing = amount - available(node, (flavor, resource))
        if missing > 0:
            parts.append(
                f"insufficient unused quota for {resource} in flavor {flavor}, {_fmt(missing)} more needed"
            )
    return (
        "couldn't assign flavors to pod set: "
        + "; ".join(parts)
        + "; no workloads can be preempted"
    )


def _fmt(milli: int) -> str:
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


def order_entries(cluster: Cluster, entries: list[Entry]) -> list[Entry]:
    """Classic: lowest borrowing level first, then priority, then age. Fair sharing: tournament."""
    if cluster.fair_sharing and len(entries) > 1:
        return fairsharing.tournament(entries, lambda e: e.node, _tournament_key)
    return sorted(
        entries, key=lambda e: (e.assignment.borrowing, -e.wl.priority, e.wl.created_ms, e.wl.uid)
    )


def _tournament_key(entry: Entry, node: QuotaNode) -> tuple:
    # A head that needs preemption but has no victims is ranked with its request,
    # as Kueue ranks it (its assignment keeps the usage of the flavor it would take).
    usage = entry.assignment.usage or entry.assignment.reserve or {}
    return (
        fairsharing.borrows(node, usage),  # at this level of the tree, not the queue's level
        fairsharing.share(node, usage),
        -entry.wl.priority,
        entry.wl.created_ms,
    )


def _process(cluster: Cluster, entry: Entry, cycle: _Cycle) -> bool:
    wl, assignment = entry.wl, entry.assignment
    queue = cluster.queues[entry.cq.name]
    if assignment.mode == NO_FIT:
        _reserve(entry, cycle)
        _send_back(cluster, wl, assignment.reason, assignment.message)
        if entry.cq.queueing_strategy == m.STRICT_FIFO:
            return False
        if queue.head() is wl:
            _park_head(cluster, queue, assignment.reason, assignment.message)
        return True
    if assignment.mode == PREEMPT:
        return _preempt(cluster, entry, cycle)
    if not _fits_without(cluster, entry.node, assignment.usage, cycle.preempted.values()):
        _send_back(cluster, wl, WAITING_FOR_QUOTA, NO_LONGER_FITS)
        return False
    if no_room := topology_misfit(cluster, wl, assignment):  # an earlier entry took the room
        _send_back(cluster, wl, topology.NO_FIT_REASON, no_room)
        return False
    lifecycle.admit(cluster, wl, m.Admission(entry.cq.name, assignment.pod_sets))
    return True


def topology_misfit(cluster: Cluster, wl: m.Workload, assignment: Assignment) -> str:
    """Why a pod set that requires one topology domain finds none with room ('' if all fit).

    Only when the scenario has nodes: without them there is no topology to place in.
    """
    if not cluster.nodes:
        return ""
    assigned = {psa.name: psa for psa in assignment.pod_sets}
    for pod_set in wl.pod_sets:
        if not (pod_set.required_topology or pod_set.preferred_topology):
            continue
        psa = assigned.get(pod_set.name)
        flavor = placement.assigned_flavor(psa, cluster.flavors)
        if not pod_set.required_topology and not (flavor and flavor.topology_name):
            continue  # a preference on a flavor without topology: placed as any pod set
        eligible = placement.eligible_nodes(pod_set, psa, cluster.nodes, cluster.flavors)
        if topology.choose_nodes(pod_set, flavor, eligible, cluster.free) is None:
            return topology.no_fit_message(pod_set, flavor, eligible, cluster.free)
    return ""


def _send_back(cluster: Cluster, wl: m.Workload, reason: str, message) -> None:
    """Write why ``wl`` waits; a paced run counts the write if the status changed
    (Kueue patches a sent-back head's status in the cycle, only when it changes)."""
    before = _pending_state(wl) if cluster.writes is not None else None
    cluster.status_writer.pending(wl, reason, message, cluster.now_ms)
    if cluster.writes is not None and _pending_state(wl) != before:
        cluster.writes.append((PENDING, wl))


def _pending_state(wl: m.Workload) -> tuple | None:
    condition = status.get_condition(wl.obj, status.QUOTA_RESERVED)
    return condition and (condition["status"], condition["reason"], condition["message"])


def _reserve(entry: Entry, cycle: _Cycle) -> None:
    """Hold quota for a head that needs preemption but found no victims.

    Kueue blocks capacity up to the nominal quota (or the borrowing limit when
    borrowing) for the rest of the cycle, so that a lower-priority workload of
    another queue cannot take what this queue may still reclaim — unless
    ``reclaimWithinCohort: Any`` guarantees it can always reclaim later.
    Without this, the quota a preemptor just freed goes back to its victims'
    queue whenever an older, victimless head hides the preemptor for a cycle.
    """
    request, node = entry.assignment.reserve, entry.node
    if not request or entry.cq.preemption.reclaim_within_cohort == m.ANY:
        return
    held = {}
    for cell, amount in request.items():
        used, nominal = node.usage.get(cell, 0), node.subtree_quota.get(cell, 0)
        if not entry.assignment.borrowing:
            amount = min(amount, nominal - used)
        elif (limit := node.borrowing_limit.get(cell)) is not None:
            amount = min(amount, nominal + limit - used)
        if amount > 0:
            held[cell] = amount
    if held:
        add_usage(node, held)
        cycle.reservations.append((node, held))


def _preempt(cluster: Cluster, entry: Entry, cycle: _Cycle) -> bool:
    """Evict the victims now and hold the preemptor's quota for this cycle.

    As Kueue v0.17, the victims are the ones found when the head was evaluated; a
    preemptor whose victims another preemptor of the cycle already took, or that
    no longer fits with its and the cycle's victims gone, waits for the next cycle.
    Victims whose pods are already stopping come first in the search and are not
    evicted again, so a preemptor waiting for them changes nothing until their
    quota is released.
    """
    wl, now, usage = entry.wl, cluster.now_ms, entry.assignment.usage
    targets = entry.targets
    if any(target.victim.key in cycle.preempted for target in targets):
        _send_back(cluster, wl, WAITING_FOR_QUOTA, OVERLAPPING_TARGETS)
        return False
    if not _fits_without(cluster, entry.node, usage, [*cycle.preempted.values(), *targets]):
        _send_back(cluster, wl, WAITING_FOR_QUOTA, NO_LONGER_FITS)
        return False
    cycle.preempted.update((target.victim.key, target) for target in targets)
    fresh = [target for target in targets if not target.victim.stopping]
    for target in fresh:
        _evict_victim(cluster, target, wl)
        if cluster.record_events:
            note = f"Preempted {target.victim.key} ({target.reason})"
            cluster.events.append(status.event(wl, "PreemptedWorkload", note, now))
    add_usage(entry.node, usage)
    cycle.reservations.append((entry.node, usage))
    message = f"Pending the preemption of {len(targets)} workload(s)"
    _send_back(cluster, wl, WAITING_FOR_PREEMPTED, message)  # Kueue patches it in the cycle
    return bool(fresh)


def _fits_without(
    cluster: Cluster, node: QuotaNode, usage: m.Usage, victims: Iterable[Target]
) -> bool:
    """Whether ``usage`` fits in ``node`` once ``victims`` have given their quota back."""
    gone = [
        _Gone(cluster.cq_nodes[target.cluster_queue], target.victim.admission.total)
        for target in victims
    ]
    set_aside(gone)
    try:
        return fits(node, usage)
    finally:
        restore(gone)


class _Gone(NamedTuple):
    node: QuotaNode
    usage: m.Usage


_REASON_TEXT = {
    "InClusterQueue": "prioritization in the ClusterQueue",
    "InCohortReclamation": "reclamation within the cohort",
    "InCohortReclaimWhileBorrowing": "reclamation within the cohort while borrowing",
    "InCohortFairSharing": "fair sharing within the cohort",
}


def _evict_victim(cluster: Cluster, target: Target, preemptor: m.Workload) -> None:
    job_uid = (preemptor.obj.get("metadata", {}).get("labels") or {}).get(
        "kueue.x-k8s.io/job-uid", "UNKNOWN"
    )
    preemptor_cq = cluster.cluster_queue_of(preemptor) or ""
    message = (
        f"Preempted to accommodate a workload (UID: {preemptor.uid}, JobUID: {job_uid}) "
        f"due to {_REASON_TEXT[target.reason]}; preemptor path: {cluster.cq_nodes[preemptor_cq].path()}; "
        f"preemptee path: {cluster.cq_nodes[target.cluster_queue].path()}"
    )
    lifecycle.evict(cluster, target.victim, "Preempted", message, target.reason)
