"""Whether a request could ever start: the most its queue could get of one flavor's GPUs.

Pure functions over the manifests the reconciler renders, read by the same Kueue
admission model the simulated cluster and the what-if use, so "could ever get" is
what Kueue would allow with every other queue of the cohort tree idle: the queue's
own quota plus what it may borrow (its borrowing limit, or everything the others
lend up), capped by the flavor's physical capacity.
"""

from __future__ import annotations

from dataclasses import dataclass

from kueuemodel import Cluster, build_quota_tree, load_specs, parse_milli, potential_available


@dataclass(frozen=True)
class Ceiling:
    """The most one queue could ever be admitted with of one flavor × resource."""

    own: int
    borrowable: int
    capacity: int | None = None
    """Physical capacity of the flavor, when the catalog knows it."""

    @property
    def limit(self) -> int:
        quota = self.own + self.borrowable
        return quota if self.capacity is None else min(quota, self.capacity)


def queue_ceiling(manifests: list[dict], queue: str, flavor: str, resource: str) -> Ceiling:
    """``queue``'s nominal quota and the most it could borrow, in whole units."""
    cluster = Cluster()
    load_specs(cluster, manifests)
    build_quota_tree(cluster)
    node = cluster.cq_nodes.get(queue)
    if node is None:
        return Ceiling(own=0, borrowable=0)
    cell = (flavor, resource)
    own = node.nominal.get(cell, 0)
    # Milli-units inside the model; a request for whole devices fits in the floor.
    return Ceiling(own=own // 1000, borrowable=(potential_available(node, cell) - own) // 1000)


def capped(ceiling: Ceiling, capacity: str | None) -> Ceiling:
    """The same ceiling, capped by a physical capacity quantity (None: unknown)."""
    if capacity is None:
        return ceiling
    return Ceiling(ceiling.own, ceiling.borrowable, parse_milli(capacity) // 1000)


def explain(ceiling: Ceiling, *, queue: str, flavor: str) -> str:
    """Where the ceiling comes from, in words: "16 of its own + 48 borrowed"."""
    parts = [f"{ceiling.own} of its own"]
    if ceiling.borrowable:
        parts.append(f"{ceiling.borrowable} borrowed")
    reason = " + ".join(parts)
    if ceiling.capacity is not None and ceiling.capacity < ceiling.own + ceiling.borrowable:
        reason += f", but the cluster has only {ceiling.capacity} {flavor} GPUs"
    return f"queue {queue} can get at most {ceiling.limit} ({reason})"
