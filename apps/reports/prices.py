"""A flavor's $/GPU-hour, as the weekly report and the what-if take it.

The order of preference (docs/reports.md, "Prices"): OpenCost's price, else the
portal's price table. A week's build reads OpenCost from Prometheus; a what-if
reuses the OpenCost prices its window's newest stored report found, so both
price a flavor from the same sources, and neither invents a price.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from apps.reports.compute.records import Price
from apps.reports.compute.weeks import week_of
from apps.reports.models import GpuPrice, WeeklyReport

OPENCOST = "opencost"
PRICE_TABLE = "price-table"


def flavor_prices(opencost: dict[str, float]) -> dict[str, Price]:
    """flavor → price: OpenCost's (flavor → $/GPU-hour) over the price table's."""
    prices = {
        flavor: Price(float(usd), PRICE_TABLE)
        for flavor, usd in GpuPrice.objects.values_list("flavor__name", "usd_per_gpu_hour")
    }
    prices.update({flavor: Price(usd, OPENCOST) for flavor, usd in opencost.items()})
    return prices


def window_prices(start: datetime, end: datetime) -> dict[str, Price]:
    """The prices of [start, end): the OpenCost prices of the newest stored report of a
    week the window touches (none stored: none), then the price table."""
    weeks, day = set(), start
    while day < end:
        weeks.add(week_of(day))
        day += timedelta(days=1)
    weeks.add(week_of(end - timedelta(microseconds=1)))
    newest = WeeklyReport.objects.filter(week__in=weeks).order_by("-week").first()
    rows = ((newest.data.get("cost") or {}).get("prices") or []) if newest else []
    return flavor_prices(
        {row["flavor"]: row["usd_per_gpu_hour"] for row in rows if row["source"] == OPENCOST}
    )
