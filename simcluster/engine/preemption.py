"""Classic preemption (fair sharing off): find a minimal set of victims.

Candidates come from the preemptor's own ClusterQueue (``withinClusterQueue``)
and from ClusterQueues in the cohort tree that are borrowing on a contested
cell (``reclaimWithinCohort``). They are removed greedily in Kueue's order
until the preemptor fits, then re-added in reverse wherever the preemptor
still fits, which keeps the victim set minimal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from . import model as m
from .quota import QuotaNode, add_cell, available, fits, is_borrowing, remove_cell, walk

IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"


@dataclass(frozen=True, slots=True)
class Target:
    victim: m.Workload
    cluster_queue: str
    reason: str


@dataclass(frozen=True, slots=True)
class Candidate:
    wl: m.Workload
    node: QuotaNode
    usage: m.Usage
    own: bool


def contested_cells(node: QuotaNode, usage: m.Usage) -> set[m.FlavorResource]:
    return {cell for cell, amount in usage.items() if amount > available(node, cell)}


def priority_allows(policy: str, victim: m.Workload, preemptor: m.Workload) -> bool:
    """Whether ``policy`` lets ``preemptor`` evict ``victim``."""
    if policy == m.ANY:
        return True
    if policy == m.LOWER_PRIORITY:
        return victim.priority < preemptor.priority
    if policy == m.LOWER_OR_NEWER_EQUAL:
        if victim.priority == preemptor.priority:
            return victim.created_ms > preemptor.created_ms
        return victim.priority < preemptor.priority
    return False


def candidate_order(candidate: Candidate) -> tuple[bool, int, int, str]:
    """Other queues first, then lowest priority, most recently reserved, UID."""
    wl = candidate.wl
    return (candidate.own, wl.priority, -(wl.reserved_ms or 0), wl.uid)


def collect_candidates(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    cells: set[m.FlavorResource],
    reserving: dict[str, dict[str, m.Workload]],
    cq_nodes: dict[str, QuotaNode],
    cohort_policy: Callable[[m.Workload], bool],
) -> list[Candidate]:
    """Admitted workloads that use a contested cell and that policy allows evicting."""
    found = []
    within = cq.preemption.within_cluster_queue
    for wl in reserving.get(cq.name, {}).values():
        if priority_allows(within, wl, preemptor) and _touches(wl, cells):
            found.append(Candidate(wl, node, wl.admission.usage(), True))
    if node.parent is not None:
        for other in walk(node.root()):
            if not other.is_cluster_queue or other is node or not is_borrowing(other, cells):
                continue
            for wl in reserving.get(other.name, {}).values():
                if cohort_policy(wl) and _touches(wl, cells):
                    found.append(Candidate(wl, cq_nodes[other.name], wl.admission.usage(), False))
    found.sort(key=candidate_order)
    return found


def _touches(wl: m.Workload, cells: set[m.FlavorResource]) -> bool:
    return wl.admission is not None and any(cell in cells for cell in wl.admission.usage())


def classic_targets(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    usage: m.Usage,
    reserving: dict[str, dict[str, m.Workload]],
    cq_nodes: dict[str, QuotaNode],
) -> list[Target]:
    """Kueue's classic search: reclaim without borrowing first, then in-queue."""
    cells = contested_cells(node, usage)
    if not cells:
        return []
    policy = cq.preemption
    if policy.borrow_within_cohort != m.NEVER:
        threshold = policy.max_priority_threshold

        def allowed(wl: m.Workload) -> bool:
            under = threshold is None or wl.priority <= threshold
            return (
                policy.reclaim_within_cohort != m.NEVER
                and wl.priority < preemptor.priority
                and under
            )

        candidates = collect_candidates(preemptor, cq, node, cells, reserving, cq_nodes, allowed)
        return minimal_set(node, usage, candidates, True, IN_COHORT_RECLAIM_WHILE_BORROWING)

    def reclaimable(wl: m.Workload) -> bool:
        return priority_allows(policy.reclaim_within_cohort, wl, preemptor)

    candidates = collect_candidates(preemptor, cq, node, cells, reserving, cq_nodes, reclaimable)
    targets = minimal_set(node, usage, candidates, False, IN_COHORT_RECLAMATION)
    if targets:
        return targets
    own = [c for c in candidates if c.own]
    return minimal_set(node, usage, own, True, IN_COHORT_RECLAMATION)


def minimal_set(
    node: QuotaNode,
    usage: m.Usage,
    candidates: Iterable[Candidate],
    allow_borrowing: bool,
    cohort_reason: str,
) -> list[Target]:
    """Greedy removal until ``usage`` fits, then put back what is not needed."""
    cells = set(usage)
    removed: list[Candidate] = []
    fitted = False
    for candidate in candidates:
        if not candidate.own and not is_borrowing(candidate.node, cells):
            continue  # that queue has stopped borrowing: it is no longer fair game
        _simulate(candidate, remove=True)
        removed.append(candidate)
        if fits(node, usage, allow_borrowing):
            fitted = True
            break
    if fitted:
        for candidate in reversed(removed[:-1]):
            _simulate(candidate, remove=False)
            if fits(node, usage, allow_borrowing):
                removed.remove(candidate)
            else:
                _simulate(candidate, remove=True)
    borrows_after = fitted and not fits(node, usage, allow_borrowing=False)
    for candidate in removed:
        _simulate(candidate, remove=False)
    if not fitted:
        return []
    if not borrows_after:
        cohort_reason = IN_COHORT_RECLAMATION
    return [
        Target(c.wl, c.node.name, IN_CLUSTER_QUEUE if c.own else cohort_reason) for c in removed
    ]


def _simulate(candidate: Candidate, remove: bool) -> None:
    # Direct cell updates: a what-if must not bump the tree version.
    for cell, amount in candidate.usage.items():
        if remove:
            remove_cell(candidate.node, cell, amount)
        else:
            add_cell(candidate.node, cell, amount)
