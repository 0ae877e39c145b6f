"""The quota tree: ClusterQueues as leaves, Cohorts as inner nodes.

Accounting follows Kueue's resource nodes. For each (flavor, resource) cell a
node has a *subtree quota* (its own nominal plus what its children lend up) and
a *guaranteed* part (subtree quota minus lendingLimit) that only it may use.
Usage fills the guaranteed part first and overflows into the parent's pool,
recursively, so "borrowing" is simply usage above the node's subtree quota.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .model import FlavorResource, ResourceGroup, Usage


@dataclass(slots=True, eq=False)
class QuotaNode:
    """One ClusterQueue or Cohort in the tree."""

    name: str
    is_cluster_queue: bool
    weight: float = 1.0
    parent: QuotaNode | None = None
    children: list[QuotaNode] = field(default_factory=list)
    nominal: Usage = field(default_factory=dict)
    borrowing_limit: dict[FlavorResource, int] = field(default_factory=dict)
    lending_limit: dict[FlavorResource, int] = field(default_factory=dict)
    subtree_quota: Usage = field(default_factory=dict)
    guaranteed: Usage = field(default_factory=dict)
    """Per cell, the part of ``subtree_quota`` kept from the parent (lendingLimit)."""
    usage: Usage = field(default_factory=dict)
    version: int = 0
    """Bumped on every usage change anywhere below the tree's root (on the root)."""
    top: QuotaNode | None = None
    """The tree's root, once ``compute_subtree_quotas`` has run (the tree is fixed)."""
    height: int = 0
    """Levels of Cohorts below this one, counting its ClusterQueues as one (0 for a queue)."""

    def root(self) -> QuotaNode:
        if self.top is not None:
            return self.top
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def path(self) -> str:
        """``/root/.../name`` as Kueue prints preemptor/preemptee paths."""
        names = []
        node: QuotaNode | None = self
        while node is not None:
            names.append(node.name)
            node = node.parent
        return "/" + "/".join(reversed(names))

    def ancestors(self) -> Iterator[QuotaNode]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


def load_quotas(node: QuotaNode, groups: Iterable[ResourceGroup]) -> None:
    """Copy nominal quota and limits from resource groups into ``node``."""
    for group in groups:
        for flavor in group.flavors:
            for resource, quota in flavor.resources.items():
                cell = (flavor.name, resource)
                node.nominal[cell] = quota.nominal
                if quota.borrowing_limit is not None:
                    node.borrowing_limit[cell] = quota.borrowing_limit
                if quota.lending_limit is not None:
                    node.lending_limit[cell] = quota.lending_limit


def guaranteed(node: QuotaNode, cell: FlavorResource) -> int:
    """The part of the node's quota that it does not lend to its parent."""
    return node.guaranteed.get(cell, 0)


def compute_subtree_quotas(root: QuotaNode, top: QuotaNode | None = None) -> None:
    """Fill ``subtree_quota`` bottom-up (own nominal plus children's lendable part),
    each node's ``guaranteed`` share and its ``top``."""
    root.top = top or root
    for child in root.children:
        compute_subtree_quotas(child, root.top)
    root.height = _height(root)
    root.subtree_quota = dict(root.nominal)
    for child in root.children:
        for cell, quota in child.subtree_quota.items():
            lent = quota - child.guaranteed.get(cell, 0)
            root.subtree_quota[cell] = root.subtree_quota.get(cell, 0) + lent
    root.guaranteed = {}
    if root.parent is not None:
        for cell, limit in root.lending_limit.items():
            kept = root.subtree_quota.get(cell, 0) - limit
            if kept > 0:
                root.guaranteed[cell] = kept


def _height(node: QuotaNode) -> int:
    if node.is_cluster_queue:
        return 0
    height = 1 if node.children else 0
    for child in node.children:
        if not child.is_cluster_queue and child.height + 1 > height:
            height = child.height + 1
    return height


def borrowing_level(node: QuotaNode, cell: FlavorResource, amount: int) -> tuple[int, bool]:
    """How far up the tree ``amount`` more of ``cell`` must come from, as Kueue ranks it.

    0 when the queue's own quota holds it; otherwise the height of the lowest
    Cohort whose subtree quota has room for what the levels below cannot hold
    (the whole tree's height when none has). Kueue admits heads with lower
    levels first, so a queue reclaiming its sub-cohort's quota goes before a
    higher-priority queue borrowing from the root. The flag says whether that
    Cohort is below the root: the queue may then reclaim by hierarchy.
    """
    if node.parent is None or node.usage.get(cell, 0) + amount <= node.subtree_quota.get(cell, 0):
        return 0, node.parent is not None
    remaining = amount - _local_free(node, cell)
    for cohort in node.ancestors():
        if cohort.usage.get(cell, 0) + remaining <= cohort.subtree_quota.get(cell, 0):
            return cohort.height, cohort.parent is not None
        remaining -= _local_free(cohort, cell)
    return node.root().height, False


def _local_free(node: QuotaNode, cell: FlavorResource) -> int:
    """Unused quota the node keeps from its parent (lendingLimit)."""
    free = node.guaranteed.get(cell, 0) - node.usage.get(cell, 0)
    return free if free > 0 else 0


# The functions below run millions of times per replayed week: no max()/min()
# calls and no helper calls on the way up the tree.


def available(node: QuotaNode, cell: FlavorResource) -> int:
    """Free quota the node could use right now (may be negative when over)."""
    parent = node.parent
    if parent is None:
        return node.subtree_quota.get(cell, 0) - node.usage.get(cell, 0)
    own = node.guaranteed.get(cell, 0)
    used = node.usage.get(cell, 0)
    local = own - used if own > used else 0
    from_parent = available(parent, cell)
    limit = node.borrowing_limit.get(cell)
    if limit is not None:
        stored_in_parent = node.subtree_quota.get(cell, 0) - own
        used_in_parent = used - own if used > own else 0
        cap = stored_in_parent - used_in_parent + limit
        if cap < from_parent:
            from_parent = cap
    return local + from_parent


def potential_available(node: QuotaNode, cell: FlavorResource) -> int:
    """The most the node could ever use with the tree empty (its max capacity)."""
    if node.parent is None:
        return node.subtree_quota.get(cell, 0)
    own = guaranteed(node, cell)
    from_parent = potential_available(node.parent, cell)
    limit = node.borrowing_limit.get(cell)
    if limit is not None:
        from_parent = min(from_parent, node.subtree_quota.get(cell, 0) - own + limit)
    return own + from_parent


def add_usage(node: QuotaNode, usage: Usage) -> None:
    for cell, amount in usage.items():
        add_cell(node, cell, amount)
    node.root().version += 1


def add_cell(node: QuotaNode, cell: FlavorResource, amount: int) -> None:
    while True:
        used = node.usage.get(cell, 0)
        own = node.guaranteed.get(cell, 0)
        node.usage[cell] = used + amount
        node = node.parent
        if node is None:
            return
        # Usage fills the node's own share first; only the overflow reaches the parent.
        local_free = own - used if own > used else 0
        if amount <= local_free:
            return
        amount -= local_free


def remove_usage(node: QuotaNode, usage: Usage) -> None:
    for cell, amount in usage.items():
        remove_cell(node, cell, amount)
    node.root().version += 1


def remove_cell(node: QuotaNode, cell: FlavorResource, amount: int) -> None:
    while True:
        used = node.usage.get(cell, 0)
        stored_in_parent = used - node.guaranteed.get(cell, 0)
        node.usage[cell] = used - amount
        node = node.parent
        if node is None or stored_in_parent <= 0:
            return
        if stored_in_parent < amount:
            amount = stored_in_parent


def borrowed(node: QuotaNode, cell: FlavorResource) -> int:
    """Usage above the node's own quota for ``cell`` (0 when not borrowing)."""
    return max(0, node.usage.get(cell, 0) - node.subtree_quota.get(cell, 0))


def is_borrowing(node: QuotaNode, cells: Iterable[FlavorResource]) -> bool:
    usage, quota = node.usage, node.subtree_quota
    for cell in cells:  # noqa: SIM110 - a generator here costs a victim search 3 %
        if usage.get(cell, 0) > quota.get(cell, 0):
            return True
    return False


def fits(node: QuotaNode, request: Usage, allow_borrowing: bool = True) -> bool:
    """Whether ``request`` can be charged to ``node`` now."""
    for cell, amount in request.items():
        if not allow_borrowing and node.usage.get(cell, 0) + amount > node.subtree_quota.get(
            cell, 0
        ):
            return False
        if amount > available(node, cell):
            return False
    return True


def walk(root: QuotaNode) -> Iterator[QuotaNode]:
    """All nodes under and including ``root``, parents before children."""
    yield root
    for child in root.children:
        yield from walk(child)
