"""Preemption's shared parts: victims (``Target``), candidates, their order, the
priority policies and the greedy minimal victim set that fair sharing uses.

Classic preemption (fair sharing off) is ``classical``; fair sharing's is
``fairsharing``. Candidates are removed greedily in Kueue's order until the
preemptor fits, then re-added in reverse wherever the preemptor still fits,
which keeps the victim set minimal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from . import model as m
from .quota import (
    QuotaNode,
    add_cell,
    available,
    borrowing_level,
    fits,
    is_borrowing,
    remove_cell,
    walk,
)

IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"


@dataclass(frozen=True, slots=True)
class Target:
    victim: m.Workload
    cluster_queue: str
    reason: str


class Candidate(NamedTuple):
    """A possible victim (a tuple: searches build hundreds of thousands)."""

    wl: m.Workload
    node: QuotaNode
    usage: m.Usage
    own: bool
    queue_usage: float = 0.0
    """Its LocalQueue's AdmissionFairSharing usage (own queue only; 0 without it)."""


UsageOf = Callable[[m.Workload], float] | None
"""AdmissionFairSharing's usage of a workload's LocalQueue, where the queue orders by it."""


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


def victim_priority_bound(preemptor: m.Workload, cq: m.ClusterQueue) -> float:
    """Every possible victim of ``preemptor`` has a priority below this (-inf: nobody).

    Victim searches take their candidates through ``priority_allows`` with the
    queue's ``withinClusterQueue`` or ``reclaimWithinCohort`` policy (and
    ``borrowWithinCohort`` only narrows the latter), so this bounds them all.
    """
    policies = (cq.preemption.within_cluster_queue, cq.preemption.reclaim_within_cohort)
    if m.ANY in policies:
        return math.inf
    if m.LOWER_OR_NEWER_EQUAL in policies:
        return preemptor.priority + 1
    if m.LOWER_PRIORITY in policies:
        return preemptor.priority
    return -math.inf


def may_find_victims(
    bound: float, cells: Iterable[m.FlavorResource], census: dict[int, dict[m.FlavorResource, int]]
) -> bool:
    """False when no workload of the tree on ``cells`` is below ``bound``.

    ``census`` is the tree's ``Cluster.census``; ``bound`` comes from
    ``victim_priority_bound``. False means a victim search would find nobody,
    the case of most heads re-checked after a release (the lowest tier has
    nobody below it).
    """
    for priority, users in census.items():
        if priority < bound:
            for cell in cells:
                if cell in users:
                    return True
    return False


def candidate_order(candidate: Candidate) -> tuple[bool, bool, float, int, int, str]:
    """Already evicted first, then other queues, the busiest LocalQueue (AdmissionFairSharing,
    within the preemptor's queue), lowest priority, most recently reserved, UID."""
    wl = candidate.wl
    return (
        not wl.stopping,
        candidate.own,
        -candidate.queue_usage,
        wl.priority,
        -(wl.reserved_ms or 0),
        wl.uid,
    )


def collect_candidates(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    cells: set[m.FlavorResource],
    by_priority: dict[str, dict[int, dict[str, m.Workload]]],
    cohort_policy: Callable[[m.Workload], bool] | None,
    usage_of: UsageOf = None,
) -> list[Candidate]:
    """Admitted workloads that use a contested cell and that policy allows evicting,
    in victim order. A ``cohort_policy`` of None collects the preemptor's own queue only.

    ``by_priority`` is ``Cluster.by_priority`` (ClusterQueue -> priority ->
    workloads). ``cohort_policy`` must depend on a victim's priority only, so
    it is asked once per priority level rather than once per workload.
    """
    found = own_candidates(preemptor, cq, node, cells, by_priority, usage_of)
    if cohort_policy is not None:
        found += cohort_candidates(node, cells, by_priority, cohort_policy)
    found.sort(key=candidate_order)
    return found


def own_candidates(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    cells: set[m.FlavorResource],
    by_priority: dict[str, dict[int, dict[str, m.Workload]]],
    usage_of: UsageOf = None,
) -> list[Candidate]:
    """The preemptor's own queue's workloads ``withinClusterQueue`` allows, unordered."""
    found: list[Candidate] = []
    within = cq.preemption.within_cluster_queue
    if within == m.NEVER:
        return found
    for priority, group in by_priority.get(cq.name, {}).items():
        if within == m.LOWER_OR_NEWER_EQUAL and priority == preemptor.priority:
            members = [wl for wl in group.values() if priority_allows(within, wl, preemptor)]
        elif group and priority_allows(within, next(iter(group.values())), preemptor):
            members = group.values()
        else:
            continue
        found.extend(
            Candidate(wl, node, wl.admission.total, True, usage_of(wl) if usage_of else 0.0)
            for wl in members
            if not cells.isdisjoint(wl.admission.total)
        )
    return found


def cohort_candidates(
    node: QuotaNode,
    cells: set[m.FlavorResource],
    by_priority: dict[str, dict[int, dict[str, m.Workload]]],
    cohort_policy: Callable[[m.Workload], bool],
) -> list[Candidate]:
    """Workloads of the tree's other queues that borrow on ``cells``, unordered."""
    found: list[Candidate] = []
    if node.parent is None:
        return found
    for other in walk(node.root()):
        if not other.is_cluster_queue or other is node or not is_borrowing(other, cells):
            continue
        for group in by_priority.get(other.name, {}).values():
            if not group or not cohort_policy(next(iter(group.values()))):
                continue
            found.extend(
                Candidate(wl, other, wl.admission.total, False)
                for wl in group.values()
                if not cells.isdisjoint(wl.admission.total)
            )
    return found


def minimal_set(
    node: QuotaNode,
    usage: m.Usage,
    candidates: Iterable[Candidate],
    allow_borrowing: bool,
    cohort_reason: str,
) -> list[Target]:
    """Greedy removal until ``usage`` fits, then put back what is not needed."""
    cells = set(usage)

    def valid(candidate: Candidate) -> bool:
        # A queue that has stopped borrowing is no longer fair game.
        return candidate.own or is_borrowing(candidate.node, cells)

    removed = remove_until_fits(node, usage, candidates, allow_borrowing, valid)
    if removed is None:
        return []
    borrows_after = not fits(node, usage, allow_borrowing=False)
    restore(removed)
    if not borrows_after:
        cohort_reason = IN_COHORT_RECLAMATION
    return [
        Target(c.wl, c.node.name, IN_CLUSTER_QUEUE if c.own else cohort_reason) for c in removed
    ]


def remove_until_fits(
    node: QuotaNode,
    usage: m.Usage,
    candidates: Iterable,
    allow_borrowing: bool,
    valid: Callable[[Any], bool],
) -> list | None:
    """Remove ``valid`` candidates in order until ``usage`` fits, then put each back,
    last first, wherever it still fits: the victims, still removed (``restore`` them),
    or None (nothing removed) when the request never fits."""
    removed: list = []
    for candidate in candidates:
        if not valid(candidate):
            continue
        _simulate(candidate, remove=True)
        removed.append(candidate)
        if fits(node, usage, allow_borrowing):
            break
    else:
        restore(removed)
        return None
    for candidate in reversed(removed[:-1]):
        _simulate(candidate, remove=False)
        if fits(node, usage, allow_borrowing):
            removed.remove(candidate)
        else:
            _simulate(candidate, remove=True)
    return removed


def restore(removed: list) -> None:
    for candidate in removed:
        _simulate(candidate, remove=False)


def set_aside(candidates: list) -> None:
    """Take ``candidates``' usage out of the tree as a what-if (``restore`` puts it back)."""
    for candidate in candidates:
        _simulate(candidate, remove=True)


def level_after(node: QuotaNode, usage: m.Usage, victims: list[tuple[QuotaNode, m.Usage]]) -> int:
    """The borrowing level ``usage`` would have in ``node`` once ``victims`` (their
    queue and usage) are gone: how Kueue ranks a head that needs preemption."""
    for victim_node, victim_usage in victims:
        for cell, amount in victim_usage.items():
            remove_cell(victim_node, cell, amount)
    level = max(
        (borrowing_level(node, cell, amount)[0] for cell, amount in usage.items()), default=0
    )
    for victim_node, victim_usage in victims:
        for cell, amount in victim_usage.items():
            add_cell(victim_node, cell, amount)
    return level


def _simulate(candidate: Candidate, remove: bool) -> None:
    # Direct cell updates: a what-if must not bump the tree version.
    for cell, amount in candidate.usage.items():
        if remove:
            remove_cell(candidate.node, cell, amount)
        else:
            add_cell(candidate.node, cell, amount)
