"""Pure summaries for the overview page and its chart."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from apps.queues.quantity import format_units, parse_units
from apps.queues.reservations import FOREIGN, PROVIDED, of_source, reserved_per_flavor, room_left
from core.charts import MARGIN, axis


@dataclass(frozen=True)
class CapacityRow:
    """One flavor × resource: capacity, what every ClusterQueue reserves, and of that
    what the notebook pool and foreign ClusterQueues reserve (shown separately)."""

    flavor: str
    resource: str
    capacity: Decimal
    reserved: Decimal
    lendable: Decimal
    reserved_by_pool: Decimal = Decimal(0)
    reserved_by_foreign: Decimal = Decimal(0)

    @property
    def unallocated(self) -> Decimal:
        return room_left(self.capacity, self.reserved)

    @property
    def overcommitted(self) -> bool:
        return self.reserved > self.capacity


def capacity_rows(
    capacity: dict[str, dict[str, Decimal]], holders: list[dict]
) -> list[CapacityRow]:
    """Per flavor × resource: capacity, Σ reserved by all ``holders``, Σ lendable in cohorts.

    ``capacity`` is flavor → resource → quantity; ``holders`` are tagged queue snapshots
    (``apps.queues.reservations``). Queues outside a cohort lend nothing.
    """
    reserved = reserved_per_flavor(holders)
    reserved_by_pool = reserved_per_flavor(of_source(holders, PROVIDED))
    reserved_by_foreign = reserved_per_flavor(of_source(holders, FOREIGN))
    lendable = _lendable(holders)
    zero = Decimal(0)
    return [
        CapacityRow(
            flavor,
            resource,
            amount,
            reserved.get((flavor, resource), zero),
            lendable.get((flavor, resource), zero),
            reserved_by_pool.get((flavor, resource), zero),
            reserved_by_foreign.get((flavor, resource), zero),
        )
        for flavor, resources in capacity.items()
        for resource, amount in resources.items()
    ]


def _lendable(holders: list[dict]) -> dict[tuple[str, str], Decimal]:
    lendable: dict[tuple[str, str], Decimal] = {}
    for holder in holders:
        if not holder.get("cohort"):
            continue
        for quota in holder["quotas"]:
            key = (quota["flavor"], quota["resource"])
            amount = parse_units(quota["nominal"])
            limit = quota.get("lending_limit")
            lends = amount if limit in (None, "") else min(parse_units(limit), amount)
            lendable[key] = lendable.get(key, Decimal(0)) + lends
    return lendable


def chart_data(rows: list[CapacityRow]) -> dict:
    """Plotly traces (grouped bars) as JSON-safe data; each bar says its number and has a
    pattern of its own, so the picture reads without colour."""
    labels = [f"{r.flavor} · {r.resource}" for r in rows]

    def trace(name: str, values: list[Decimal], color: str, pattern: str) -> dict:
        return {
            "type": "bar",
            "name": name,
            "x": labels,
            "y": [float(v) for v in values],
            "marker": {"color": color, "pattern": {"shape": pattern}},
            "text": [format_units(v) for v in values],
        }

    return {
        "data": [
            trace("Physical capacity", [r.capacity for r in rows], "#4c6ef5", ""),
            trace("Reserved by all ClusterQueues", [r.reserved for r in rows], "#f59f00", "/"),
            trace("Lendable in cohorts", [r.lendable for r in rows], "#2b8a3e", "x"),
        ],
        "layout": {
            "barmode": "group",
            "margin": MARGIN,
            "xaxis": axis("flavor · resource"),
            # One axis for every resource: each bar is in its resource's own unit.
            "yaxis": axis("amount (GPUs, CPU cores or bytes, as the resource counts)"),
            "legend": {"orientation": "h"},
        },
    }
