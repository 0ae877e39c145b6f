"""Classic preemption (fair sharing off), as Kueue v0.17's classical preemptor does it.

Candidates are the preemptor's own queue's workloads (``withinClusterQueue``) and,
under ``reclaimWithinCohort``, workloads of queues over their quota elsewhere in the
cohort tree. Walking up from the preemptor's queue, once a subtree has room for the
request the preemptor has *hierarchical advantage* over every candidate met from
there on: those may go whatever the preemptor borrows afterwards. Any other cohort
candidate may only go if the preemptor then borrows nothing, unless
``borrowWithinCohort`` allows it for candidates below the preemptor's priority (and
threshold). Candidates are removed in Kueue's order until the request fits; then
each, last first, is put back wherever the request still fits. A candidate's queue
(and every cohort up to where it meets the preemptor's) must still be over its
quota when its turn comes, so earlier removals can spare it.
"""

from __future__ import annotations

from typing import NamedTuple

from . import model as m
from .preemption import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_RECLAIM_WHILE_BORROWING,
    IN_COHORT_RECLAMATION,
    Target,
    UsageOf,
    candidate_order,
    contested_cells,
    own_candidates,
    priority_allows,
    remove_until_fits,
    restore,
)
from .quota import QuotaNode, is_borrowing

WITHIN_QUEUE, HIERARCHICAL, WITHOUT_BORROWING, WHILE_BORROWING = range(4)
_REASONS = {
    WITHIN_QUEUE: IN_CLUSTER_QUEUE,
    HIERARCHICAL: IN_COHORT_RECLAMATION,
    WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
    WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING,
}


class _Candidate(NamedTuple):
    wl: m.Workload
    node: QuotaNode
    usage: m.Usage
    own: bool
    variant: int
    meets: QuotaNode | None
    """The cohort where the candidate's branch meets the preemptor's (None: same queue)."""
    queue_usage: float = 0.0
    """As ``preemption.Candidate.queue_usage``."""


def classic_targets(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    usage: m.Usage,
    by_priority: dict[str, dict[int, dict[str, m.Workload]]],
    usage_of: UsageOf = None,
) -> list[Target]:
    """The victims that make room for ``usage`` in ``node``, or [] if none do."""
    cells = contested_cells(node, usage)
    if not cells:
        return []
    own = [
        _Candidate(c.wl, c.node, c.usage, True, WITHIN_QUEUE, None, c.queue_usage)
        for c in own_candidates(preemptor, cq, node, cells, by_priority, usage_of)
    ]
    hierarchy, by_rank = _cohort_candidates(preemptor, cq, node, usage, cells, by_priority)
    ordered = _evicted_first(hierarchy, by_rank, own)
    # Kueue's attempts: borrowing allowed or not, in an order kept from its older
    # versions; without borrowWithinCohort a queue at or over its nominal quota may
    # only preempt while borrowing (its own workloads and hierarchy candidates).
    forbidden = cq.preemption.borrow_within_cohort == m.NEVER
    if not (hierarchy or by_rank) or (forbidden and not _under_nominal(node, cells)):
        attempts: tuple[bool, ...] = (True,)
    elif forbidden and not hierarchy:
        attempts = (False, True)
    else:
        attempts = (True, False)
    for allow_borrowing in attempts:
        targets = _attempt(node, usage, cells, ordered, allow_borrowing)
        if targets:
            return targets
    return []


def _attempt(
    node: QuotaNode,
    usage: m.Usage,
    cells: set[m.FlavorResource],
    ordered: list[_Candidate],
    allow_borrowing: bool,
) -> list[Target]:
    def valid(candidate: _Candidate) -> bool:
        return _still_valid(candidate, cells, allow_borrowing)

    removed = remove_until_fits(node, usage, ordered, allow_borrowing, valid)
    if removed is None:
        return []
    restore(removed)
    return [Target(c.wl, c.node.name, _REASONS[c.variant]) for c in removed]


def _still_valid(candidate: _Candidate, cells: set[m.FlavorResource], borrow: bool) -> bool:
    if candidate.own:
        return True
    if borrow and candidate.variant == WITHOUT_BORROWING:
        return False
    if not is_borrowing(candidate.node, cells):
        return False
    for cohort in candidate.node.ancestors():
        if cohort is candidate.meets:
            break
        if not is_borrowing(cohort, cells):
            return False
    return True


def _cohort_candidates(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    usage: m.Usage,
    cells: set[m.FlavorResource],
    by_priority: dict[str, dict[int, dict[str, m.Workload]]],
) -> tuple[list[_Candidate], list[_Candidate]]:
    """(candidates the preemptor has hierarchical advantage over, the others)."""
    hierarchy: list[_Candidate] = []
    by_rank: list[_Candidate] = []
    if node.parent is None or cq.preemption.reclaim_within_cohort == m.NEVER:
        return hierarchy, by_rank
    advantage, remaining = _fits_in_quota(node, usage)
    previous = None
    for cohort in node.ancestors():
        found = hierarchy if advantage else by_rank
        _collect(
            preemptor, cq, node, cohort, cohort, previous, advantage, cells, by_priority, found
        )
        fits_here, remaining = _fits_in_quota(cohort, remaining)
        advantage = advantage or fits_here
        previous = cohort
    return hierarchy, by_rank


def _collect(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    current: QuotaNode,
    meets: QuotaNode,
    skip: QuotaNode | None,
    advantage: bool,
    cells: set[m.FlavorResource],
    by_priority: dict[str, dict[int, dict[str, m.Workload]]],
    found: list[_Candidate],
) -> None:
    """Candidates in ``current``'s subtree, outside ``skip``, in nodes over their quota."""
    for child in current.children:
        if not child.is_cluster_queue and child is not skip and is_borrowing(child, cells):
            _collect(preemptor, cq, node, child, meets, skip, advantage, cells, by_priority, found)
    for child in current.children:
        if child.is_cluster_queue and child is not node and is_borrowing(child, cells):
            for group in by_priority.get(child.name, {}).values():
                for wl in group.values():
                    if cells.isdisjoint(wl.admission.total):
                        continue
                    variant = _variant(preemptor, cq, wl, advantage)
                    if variant is not None:
                        found.append(
                            _Candidate(wl, child, wl.admission.total, False, variant, meets)
                        )


def _variant(
    preemptor: m.Workload, cq: m.ClusterQueue, victim: m.Workload, advantage: bool
) -> int | None:
    policy = cq.preemption
    if not priority_allows(policy.reclaim_within_cohort, victim, preemptor):
        return None
    if advantage:
        return HIERARCHICAL
    if policy.borrow_within_cohort == m.NEVER or victim.priority >= preemptor.priority:
        return WITHOUT_BORROWING
    threshold = policy.max_priority_threshold
    if threshold is not None and victim.priority > threshold:
        return WITHOUT_BORROWING
    return WHILE_BORROWING


def _fits_in_quota(node: QuotaNode, request: m.Usage) -> tuple[bool, m.Usage]:
    """Whether ``request`` fits ``node``'s subtree quota, and what its own unlent quota
    leaves of it for the levels above."""
    fits_here, remaining = True, {}
    for cell, amount in request.items():
        used = node.usage.get(cell, 0)
        if used + amount > node.subtree_quota.get(cell, 0):
            fits_here = False
        local_free = node.guaranteed.get(cell, 0) - used
        remaining[cell] = amount - local_free if local_free > 0 else amount
        if remaining[cell] < 0:
            remaining[cell] = 0
    return fits_here, remaining


def _under_nominal(node: QuotaNode, cells: set[m.FlavorResource]) -> bool:
    return all(node.usage.get(cell, 0) < node.subtree_quota.get(cell, 0) for cell in cells)


def _evicted_first(*lists: list[_Candidate]) -> list[_Candidate]:
    """Each list in Kueue's candidate order; the evicted of every list before the rest."""
    ordered = [sorted(found, key=candidate_order) for found in lists]
    evicted = [c for found in ordered for c in found if c.wl.stopping]
    return evicted + [c for found in ordered for c in found if not c.wl.stopping]
