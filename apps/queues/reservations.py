"""What every holder of quota reserves per flavor: the one denominator of capacity.

A holder is a queue snapshot (``apps.queues.snapshots`` form, ``name`` and ``quotas``
at least) tagged with its ``source``: a queue of this app, a ClusterQueue another app
renders (the notebook pool), or a ClusterQueue found on the cluster that the portal
does not manage. Kueue guarantees each ClusterQueue its nominal quota whoever renders
it, so every capacity rule and every "unallocated" or "room left" figure counts all of
them through ``reserved_per_flavor``.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from apps.queues.quantity import parse_units

QUEUE = "queue"
PROVIDED = "provided"
FOREIGN = "foreign"

Key = tuple[str, str]  # (flavor, resource)


def reserved_per_flavor(
    holders: Iterable[dict], *, excluding: str | None = None
) -> dict[Key, Decimal]:
    """Σ nominal quota per (flavor, resource) over ``holders``, leaving out the one named
    ``excluding`` (ClusterQueue names are unique on a cluster, so a name is a holder)."""
    reserved: dict[Key, Decimal] = {}
    for holder in holders:
        if excluding is not None and holder["name"] == excluding:
            continue
        for quota in holder.get("quotas") or []:
            key = (quota["flavor"], quota["resource"])
            reserved[key] = reserved.get(key, Decimal(0)) + parse_units(quota["nominal"])
    return reserved


def room_left(capacity: Decimal, reserved: Decimal) -> Decimal:
    """What one more reservation may take: capacity minus every other one, never below 0."""
    return max(capacity - reserved, Decimal(0))


def of_source(holders: Iterable[dict], source: str) -> list[dict]:
    return [holder for holder in holders if holder.get("source") == source]
