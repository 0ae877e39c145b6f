"""Pure summaries for the overview page and its chart."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from apps.queues.quantity import format_units, parse_units


@dataclass(frozen=True)
class CapacityRow:
    flavor: str
    resource: str
    capacity: Decimal
    nominal: Decimal
    lendable: Decimal

    @property
    def unallocated(self) -> Decimal:
        return max(self.capacity - self.nominal, Decimal(0))

    @property
    def overcommitted(self) -> bool:
        return self.nominal > self.capacity


def capacity_rows(capacities: list[tuple[str, str, str]], quotas: list[dict]) -> list[CapacityRow]:
    """Per flavor × resource: capacity, Σ nominal, and Σ of what cohort members lend.

    ``capacities`` are (flavor, resource, quantity); ``quotas`` are quota snapshots
    with an extra ``in_cohort`` flag. Standalone queues lend nothing.
    """
    nominal: dict[tuple[str, str], Decimal] = {}
    lendable: dict[tuple[str, str], Decimal] = {}
    for quota in quotas:
        key = (quota["flavor"], quota["resource"])
        amount = parse_units(quota["nominal"])
        nominal[key] = nominal.get(key, Decimal(0)) + amount
        if quota["in_cohort"]:
            lends = (
                amount
                if quota.get("lending_limit") in (None, "")
                else parse_units(quota["lending_limit"])
            )
            lendable[key] = lendable.get(key, Decimal(0)) + min(lends, amount)
    return [
        CapacityRow(
            flavor,
            resource,
            parse_units(capacity),
            nominal.get((flavor, resource), Decimal(0)),
            lendable.get((flavor, resource), Decimal(0)),
        )
        for flavor, resource, capacity in capacities
    ]


def chart_data(rows: list[CapacityRow]) -> dict:
    """Plotly traces (grouped bars) as JSON-safe data."""
    labels = [f"{r.flavor} · {r.resource}" for r in rows]

    def trace(name: str, values: list[Decimal], color: str) -> dict:
        return {
            "type": "bar",
            "name": name,
            "x": labels,
            "y": [float(v) for v in values],
            "marker": {"color": color},
            "text": [format_units(v) for v in values],
        }

    return {
        "data": [
            trace("Physical capacity", [r.capacity for r in rows], "#4c6ef5"),
            trace("Sum of nominal quotas", [r.nominal for r in rows], "#f59f00"),
            trace("Lendable in cohorts", [r.lendable for r in rows], "#2b8a3e"),
        ],
        "layout": {
            "barmode": "group",
            "margin": {"t": 30},
            "yaxis": {"title": "units"},
            "legend": {"orientation": "h"},
        },
    }
