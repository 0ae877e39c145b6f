"""Reads for capacity figures: the physical capacity and every holder of quota on it.

The arithmetic is ``apps.queues.reservations`` (pure); this module only loads its
inputs, so validation, the overview page, the queue pages and the API divide by the
same reservations.
"""

from __future__ import annotations

from decimal import Decimal

from apps.queues.models import FlavorCapacity, ForeignClusterQueue, Queue, ResourceFlavor
from apps.queues.quantity import parse_units
from apps.queues.reconcile.desired import provided_queues
from apps.queues.reservations import FOREIGN, PROVIDED, QUEUE
from apps.queues.snapshots import queue_snapshot


def load_capacity() -> dict[str, dict[str, Decimal]]:
    """flavor → resource → physical capacity; every flavor appears, even with none."""
    capacity: dict[str, dict[str, Decimal]] = {}
    for row in FlavorCapacity.objects.select_related("flavor").order_by("flavor__name", "resource"):
        capacity.setdefault(row.flavor.name, {})[row.resource] = parse_units(row.capacity)
    for name in ResourceFlavor.objects.order_by("name").values_list("name", flat=True):
        capacity.setdefault(name, {})
    return capacity


def load_holders() -> list[dict]:
    """Every ClusterQueue that reserves quota, as snapshots tagged with their ``source``."""
    queues = [{**queue_snapshot(q), "source": QUEUE} for q in Queue.objects.with_policy()]
    provided = [{**snapshot, "source": PROVIDED} for snapshot in provided_queues()]
    ours = {holder["name"] for holder in queues + provided}
    # A foreign ClusterQueue named like one of ours is a name clash the reconciler
    # reports; counting both would reserve that quota twice.
    foreign = [
        {"name": f.name, "cohort": f.cohort, "quotas": f.quotas, "source": FOREIGN}
        for f in ForeignClusterQueue.objects.exclude(name__in=ours)
    ]
    return queues + provided + foreign
