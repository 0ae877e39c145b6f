"""A flavor's $/GPU-hour, for whoever needs one outside the reports (a job's quote).

The reports own the prices (OpenCost's, read through Prometheus, then the portal's price
table) and tell this layer how to read them from ``AppConfig.ready()``:
``use_price_reader``, as ``apps.queues`` tells ``core.audit`` about its model. So a quote
prices a job exactly as the weekly report does, and jobs need nothing of the reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class FlavorPrice:
    """$/GPU-hour of one flavor and where it came from, in words."""

    usd_per_gpu_hour: float
    source: str


PriceReader = Callable[[str], FlavorPrice | None]
_READER: list[PriceReader] = []


def use_price_reader(reader: PriceReader) -> None:
    _READER[:] = [reader]


def flavor_price(flavor: str) -> FlavorPrice | None:
    """The price of ``flavor``, or None when no source has one (or no reader is set)."""
    return _READER[0](flavor) if _READER else None
