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


def may_find_victims(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    cells: Iterable[m.FlavorResource],
    census: dict[int, dict[m.FlavorResource, int]],
) -> bool:
    """False when no workload of the tree on ``cells`` has a priority a policy allows.

    ``census`` is the tree's ``Cluster.census``. Every victim search takes its
    candidates through ``priority_allows`` with the queue's ``withinClusterQueue``
    or ``reclaimWithinCohort`` policy, among workloads on a contested cell, so
    False means the search would find nobody. Most heads re-checked after a
    release are in that case: the lowest tier has nobody below it.
    """
    policies = {cq.preemption.within_cluster_queue, cq.preemption.reclaim_within_cohort}
    policies.discard(m.NEVER)
    if not policies:
        return False
    if m.ANY in policies:
        below = None
    elif m.LOWER_OR_NEWER_EQUAL in policies:
        below = preemptor.priority + 1
    else:
        below = preemptor.priority
    for priority, users in census.items():
        if (below is None or priority < below) and any(cell in users for cell in cells):
            return True
    return False


def candidate_order(candidate: Candidate) -> tuple[bool, bool, int, int, str]:
    """Already evicted first, then other queues, lowest priority, most recently reserved, UID."""
    wl = candidate.wl
    return (not wl.stopping, candidate.own, wl.priority, -(wl.reserved_ms or 0), wl.uid)


def collect_candidates(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    cells: set[m.FlavorResource],
    by_priority: dict[str, dict[int, dict[str, m.Workload]]],
    cq_nodes: dict[str, QuotaNode],
    cohort_policy: Callable[[m.Workload], bool] | None,
) -> list[Candidate]:
    """Admitted workloads that use a contested cell and that policy allows evicting.

    A ``cohort_policy`` of None collects the preemptor's own queue only.

    ``by_priority`` is ``Cluster.by_priority`` (ClusterQueue -> priority ->
    workloads). ``cohort_policy`` must depend on a victim's priority only, so
    it is asked once per priority level rather than once per workload.
    """
    found: list[Candidate] = []
    within = cq.preemption.within_cluster_queue
    if within != m.NEVER:
        for priority, group in by_priority.get(cq.name, {}).items():
            if within == m.LOWER_OR_NEWER_EQUAL and priority == preemptor.priority:
                members = [wl for wl in group.values() if priority_allows(within, wl, preemptor)]
            elif group and priority_allows(within, next(iter(group.values())), preemptor):
                members = group.values()
            else:
                continue
            found.extend(
                Candidate(wl, node, wl.admission.total, True)
                for wl in members
                if _touches(wl, cells)
            )
    if node.parent is not None and cohort_policy is not None:
        for other in walk(node.root()):
            if not other.is_cluster_queue or other is node or not is_borrowing(other, cells):
                continue
            for group in by_priority.get(other.name, {}).values():
                if not group or not cohort_policy(next(iter(group.values()))):
                    continue
                found.extend(
                    Candidate(wl, other, wl.admission.total, False)
                    for wl in group.values()
                    if _touches(wl, cells)
                )
    found.sort(key=candidate_order)
    return found


def _touches(wl: m.Workload, cells: set[m.FlavorResource]) -> bool:
    return not cells.isdisjoint(wl.admission.total)


def classic_targets(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    usage: m.Usage,
    by_priority: dict[str, dict[int, dict[str, m.Workload]]],
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

        candidates = collect_candidates(preemptor, cq, node, cells, by_priority, cq_nodes, allowed)
        return minimal_set(node, usage, candidates, True, IN_COHORT_RECLAIM_WHILE_BORROWING)

    def reclaimable(wl: m.Workload) -> bool:
        return priority_allows(policy.reclaim_within_cohort, wl, preemptor)

    own = collect_candidates(preemptor, cq, node, cells, by_priority, cq_nodes, None)
    # As Kueue: reclaim from the cohort (without borrowing) only while this
    # queue is below nominal on every contested cell; otherwise, or when only
    # own workloads qualify, preempt within the queue, borrowing allowed.
    if (
        policy.reclaim_within_cohort != m.NEVER
        and _under_nominal(node, cells)
        and _may_stop_borrowing(node, usage, own)
    ):
        candidates = collect_candidates(
            preemptor, cq, node, cells, by_priority, cq_nodes, reclaimable
        )
        if len(candidates) > len(own):
            targets = minimal_set(node, usage, candidates, False, IN_COHORT_RECLAMATION)
            if targets:
                return targets
    return minimal_set(node, usage, own, True, IN_COHORT_RECLAMATION)


def _under_nominal(node: QuotaNode, cells: set[m.FlavorResource]) -> bool:
    return all(node.usage.get(cell, 0) < node.subtree_quota.get(cell, 0) for cell in cells)


def _may_stop_borrowing(node: QuotaNode, usage: m.Usage, own: list[Candidate]) -> bool:
    """Whether evicting every own candidate would leave room within nominal quota.

    Reclaiming from other queues is only allowed if the preemptor does not
    borrow afterwards; their workloads never lower this queue's own usage, so
    when even an empty-handed own queue would borrow, the cohort scan is moot.
    """
    freed: m.Usage = {}
    for candidate in own:
        for cell, amount in candidate.usage.items():
            freed[cell] = freed.get(cell, 0) + amount
    return all(
        node.usage.get(cell, 0) - freed.get(cell, 0) + amount <= node.subtree_quota.get(cell, 0)
        for cell, amount in usage.items()
    )


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
