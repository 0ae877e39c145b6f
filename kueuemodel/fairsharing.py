"""Fair sharing: dominant resource share (DRS), admission tournament, preemption.

A node's share is, per resource name, what it borrows (usage above its own
quota, summed over flavors) per thousand of what its parent could lend, taking
the largest resource and dividing by the node's weight. Weight 0 makes any
borrowing infinitely expensive; two infinite shares compare unweighted.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from . import model as m
from .preemption import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_FAIR_SHARING,
    IN_COHORT_RECLAMATION,
    Candidate,
    Target,
    UsageOf,
    _simulate,
    candidate_order,
    collect_candidates,
    contested_cells,
    minimal_set,
    priority_allows,
)
from .quota import QuotaNode, fits, potential_available

Share = tuple[int, float]
"""(1 if infinite else 0, value): tuples compare the way Kueue orders shares."""

MAX_INT64 = 2**63 - 1
LESS_THAN_INITIAL = "LessThanInitialShare"


def share(node: QuotaNode, extra: m.Usage | None = None) -> Share:
    """Weighted DRS of ``node`` if ``extra`` were added to its usage."""
    if node.parent is None:
        return (0, 0.0)
    borrowed: dict[str, int] = {}
    cells = set(node.usage) | set(extra or ())
    for cell in cells:
        amount = (
            node.usage.get(cell, 0) + (extra or {}).get(cell, 0) - node.subtree_quota.get(cell, 0)
        )
        if amount > 0:
            borrowed[cell[1]] = borrowed.get(cell[1], 0) + amount
    if not borrowed:
        return (0, 0.0)
    ratio = 0.0
    for resource, amount in borrowed.items():
        lendable = _lendable(node.parent, resource)
        if lendable > 0:
            ratio = max(ratio, amount * 1000 / lendable)
    if node.weight == 0:
        return (1, ratio)
    return (0, ratio / node.weight)


def borrows(node: QuotaNode, extra: m.Usage) -> bool:
    """Whether ``node`` would borrow from its parent on a cell of ``extra`` once it is added:
    Kueue's tournament puts heads whose subtree stays within its quota at that level first
    (FairSharingPrioritizeNonBorrowing, on since v0.17)."""
    if node.parent is None:
        return False
    usage, quota = node.usage, node.subtree_quota
    return any(
        amount > 0 and usage.get(cell, 0) + amount > quota.get(cell, 0)
        for cell, amount in extra.items()
    )


def _lendable(parent: QuotaNode, resource: str) -> int:
    return sum(
        potential_available(parent, cell) for cell in parent.subtree_quota if cell[1] == resource
    )


def weighted_share(node: QuotaNode) -> int:
    """The integer Kueue reports in ``status.fairSharing.weightedShare``."""
    infinite, value = share(node)
    if infinite and value > 0:
        return MAX_INT64
    return math.ceil(value)


def below(node: QuotaNode, ancestor: QuotaNode) -> QuotaNode:
    """The child of ``ancestor`` on the path down to ``node``."""
    while node.parent is not ancestor:
        node = node.parent
    return node


def common_ancestor(a: QuotaNode, b: QuotaNode) -> QuotaNode:
    seen = set(map(id, a.ancestors()))
    return next(node for node in b.ancestors() if id(node) in seen)


def tournament(entries: list, node_of: Callable, key_of: Callable) -> list:
    """Order heads by repeated recursive tournaments over the cohort tree.

    ``node_of(entry)`` gives the entry's ClusterQueue node; ``key_of(entry,
    node)`` the comparison key of that entry as seen at ``node``.
    """
    remaining = list(entries)
    ordered = []
    while remaining:
        root = node_of(remaining[0]).root()
        winner = _winner(root, remaining, node_of, key_of)
        ordered.append(winner)
        remaining.remove(winner)
    return ordered


def _winner(node: QuotaNode, entries: list, node_of: Callable, key_of: Callable):
    if node.is_cluster_queue:
        return next(e for e in entries if node_of(e) is node)
    best, best_key = None, None
    for child in node.children:
        mine = [e for e in entries if _under(node_of(e), child)]
        if not mine:
            continue
        candidate = _winner(child, mine, node_of, key_of)
        key = key_of(candidate, child)
        if best_key is None or key < best_key:
            best, best_key = candidate, key
    return best


def _under(node: QuotaNode, ancestor: QuotaNode) -> bool:
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False


def fair_targets(
    preemptor: m.Workload,
    cq: m.ClusterQueue,
    node: QuotaNode,
    usage: m.Usage,
    by_priority: dict[str, dict[int, dict[str, m.Workload]]],
    strategies: tuple[str, ...],
    usage_of: UsageOf = None,
) -> list[Target]:
    """Fair-sharing preemption: reclaim within nominal, else compare shares."""
    cells = contested_cells(node, usage)
    if not cells:
        return []
    reclaim = cq.preemption.reclaim_within_cohort

    def allowed(wl: m.Workload) -> bool:
        return reclaim != m.NEVER and priority_allows(reclaim, wl, preemptor)

    candidates = collect_candidates(preemptor, cq, node, cells, by_priority, allowed, usage_of)
    if _within_nominal(node, usage):
        targets = minimal_set(node, usage, candidates, False, IN_COHORT_RECLAMATION)
        if targets:
            return targets
    for strategy in strategies:
        targets = _by_share(node, usage, candidates, strategy)
        if targets:
            return targets
    return []


def _within_nominal(node: QuotaNode, usage: m.Usage) -> bool:
    return all(node.usage.get(c, 0) + a <= node.subtree_quota.get(c, 0) for c, a in usage.items())


def _by_share(
    node: QuotaNode, usage: m.Usage, candidates: list[Candidate], strategy: str
) -> list[Target]:
    """Take from the most over-served queue while the strategy says it is fair."""
    pools: dict[int, list[Candidate]] = {}
    for candidate in candidates:
        pools.setdefault(id(candidate.node), []).append(candidate)
    removed: list[tuple[Candidate, str]] = []
    while not fits(node, usage) and pools:
        target_pool = max(pools.values(), key=lambda pool: _rival_share(node, pool[0].node))
        candidate = target_pool[0]
        if candidate.own:
            reason = IN_CLUSTER_QUEUE
        elif _fair_to_take(node, usage, candidate, strategy):
            reason = IN_COHORT_FAIR_SHARING
        else:
            del pools[id(candidate.node)]
            continue
        _simulate(candidate, remove=True)
        removed.append((candidate, reason))
        target_pool.pop(0)
        if not target_pool:
            del pools[id(candidate.node)]
    fitted = fits(node, usage)
    if fitted:
        removed = _put_back(node, usage, removed)
    for candidate, _ in removed:
        _simulate(candidate, remove=False)
    return [Target(c.wl, c.node.name, reason) for c, reason in removed] if fitted else []


def _rival_share(node: QuotaNode, rival: QuotaNode) -> Share:
    if rival is node:
        return share(node)
    return share(below(rival, common_ancestor(node, rival)))


def _fair_to_take(node: QuotaNode, usage: m.Usage, candidate: Candidate, strategy: str) -> bool:
    ancestor = common_ancestor(node, candidate.node)
    mine, theirs = below(node, ancestor), below(candidate.node, ancestor)
    my_after = share(mine, usage)
    if strategy == LESS_THAN_INITIAL:
        return my_after < share(theirs)
    _simulate(candidate, remove=True)
    their_after = share(theirs)
    _simulate(candidate, remove=False)
    return my_after <= their_after


def _put_back(
    node: QuotaNode, usage: m.Usage, removed: list[tuple[Candidate, str]]
) -> list[tuple[Candidate, str]]:
    kept = list(removed)
    for entry in reversed(removed[:-1]):
        _simulate(entry[0], remove=False)
        if fits(node, usage):
            kept.remove(entry)
        else:
            _simulate(entry[0], remove=True)
    return kept


__all__ = ["candidate_order", "fair_targets", "share", "tournament", "weighted_share"]
