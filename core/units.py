"""Numbers as people read them: durations, bytes and money in human units.

One module for every page, chart label and what-if table, so a wait reads ``3.8 d``
wherever it appears and never ``324915 s`` in one place and minutes in another. Each
function also says the exact value (``exact_*``) for a tooltip; CSV and JSON keep raw
numbers. Pure: no Django.
"""

from __future__ import annotations

from decimal import Decimal

MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0
BINARY_STEPS = (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))
NOTHING = "–"


def human_duration(seconds: float | int | None) -> str:
    """``45 s``, ``12 min``, ``5.5 h``, ``3.8 d``: the largest unit the value fills at least
    once; one decimal from hours up (whole numbers below); ``–`` for None."""
    if seconds is None:
        return NOTHING
    value = float(seconds)
    sign, size = ("−" if value < 0 else ""), abs(value)
    if size < MINUTE:
        return f"{sign}{size:.0f} s"
    if size < HOUR:
        return f"{sign}{size / MINUTE:.0f} min"
    if size < DAY:
        return f"{sign}{_one_decimal(size / HOUR)} h"
    return f"{sign}{_one_decimal(size / DAY)} d"


def exact_duration(seconds: float | int | None) -> str:
    """The exact value in seconds, for a tooltip: ``324915 s``."""
    return NOTHING if seconds is None else f"{float(seconds):.0f} s"


def human_bytes(count: int | float | Decimal | None) -> str:
    """``512 Gi``, ``1.5 Ti``, ``100 Mi``: binary units as Kubernetes writes memory."""
    if count is None:
        return NOTHING
    value = float(count)
    for suffix, size in BINARY_STEPS:
        if abs(value) >= size:
            return f"{_one_decimal(value / size)} {suffix}"
    return f"{value:.0f} B"


def exact_bytes(count: int | float | Decimal | None) -> str:
    return NOTHING if count is None else f"{int(count):,} bytes"


def human_money(usd: float | Decimal | None) -> str:
    """``$1,320.00``: US dollars to the cent with thousands separators."""
    if usd is None:
        return NOTHING
    value = float(usd)
    return f"{'−' if value < 0 else ''}${abs(value):,.2f}"


def exact_money(usd: float | Decimal | None) -> str:
    """The exact value for a tooltip, past the cent: ``1320.004167 USD``."""
    return NOTHING if usd is None else f"{float(usd):.6f} USD"


def _one_decimal(value: float) -> str:
    """``3.8``, and ``12`` rather than ``12.0``."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text
