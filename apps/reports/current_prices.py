"""The price of a flavor now, as the reports price it: the newest weekly report's price
(OpenCost's, else the price table's at its build), else the price table as it is now."""

from __future__ import annotations

from apps.reports.models import GpuPrice, WeeklyReport
from core.prices import FlavorPrice


def current_flavor_price(flavor: str) -> FlavorPrice | None:
    newest = (
        WeeklyReport.objects.order_by("-week").values_list("week", "data__cost__prices").first()
    )
    if newest is not None:
        week, rows = newest
        for row in rows or ():
            if row.get("flavor") == flavor and row.get("usd_per_gpu_hour") is not None:
                return FlavorPrice(
                    float(row["usd_per_gpu_hour"]), f"{row['source']}, report {week}"
                )
    table = GpuPrice.objects.filter(flavor__name=flavor).values_list("usd_per_gpu_hour", flat=True)
    price = table.first()
    return None if price is None else FlavorPrice(float(price), "price-table")
