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
    usage: Usage = field(default_factory=dict)
    version: int = 0
    """Bumped on every usage change anywhere below the tree's root (on the root)."""

    def root(self) -> QuotaNode:
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
    limit = node.lending_limit.get(cell)
    if limit is None or node.parent is None:
        return 0
    return max(0, node.subtree_quota.get(cell, 0) - limit)


def compute_subtree_quotas(root: QuotaNode) -> None:
    """Fill ``subtree_quota`` bottom-up: own nominal plus children's lendable part."""
    for child in root.children:
        compute_subtree_quotas(child)
    root.subtree_quota = dict(root.nominal)
    for child in root.children:
        for cell, quota in child.subtree_quota.items():
            lent = quota - guaranteed(child, cell)
            root.subtree_quota[cell] = root.subtree_quota.get(cell, 0) + lent


def available(node: QuotaNode, cell: FlavorResource) -> int:
    """Free quota the node could use right now (may be negative when over)."""
    if node.parent is None:
        return node.subtree_quota.get(cell, 0) - node.usage.get(cell, 0)
    own = guaranteed(node, cell)
    used = node.usage.get(cell, 0)
    local = max(0, own - used)
    from_parent = available(node.parent, cell)
    limit = node.borrowing_limit.get(cell)
    if limit is not None:
        stored_in_parent = node.subtree_quota.get(cell, 0) - own
        used_in_parent = max(0, used - own)
        from_parent = min(from_parent, stored_in_parent - used_in_parent + limit)
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
    local_free = max(0, guaranteed(node, cell) - node.usage.get(cell, 0))
    node.usage[cell] = node.usage.get(cell, 0) + amount
    if node.parent is not None and amount > local_free:
        add_cell(node.parent, cell, amount - local_free)


def remove_usage(node: QuotaNode, usage: Usage) -> None:
    for cell, amount in usage.items():
        remove_cell(node, cell, amount)
    node.root().version += 1


def remove_cell(node: QuotaNode, cell: FlavorResource, amount: int) -> None:
    stored_in_parent = node.usage.get(cell, 0) - guaranteed(node, cell)
    node.usage[cell] = node.usage.get(cell, 0) - amount
    if node.parent is not None and stored_in_parent > 0:
        remove_cell(node.parent, cell, min(amount, stored_in_parent))


def borrowed(node: QuotaNode, cell: FlavorResource) -> int:
    """Usage above the node's own quota for ``cell`` (0 when not borrowing)."""
    return max(0, node.usage.get(cell, 0) - node.subtree_quota.get(cell, 0))


def is_borrowing(node: QuotaNode, cells: Iterable[FlavorResource]) -> bool:
    return any(borrowed(node, cell) > 0 for cell in cells)


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
