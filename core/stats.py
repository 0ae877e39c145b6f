"""Small statistics over plain lists (no numpy in this project)."""

from __future__ import annotations

import math


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile (0–100) with linear interpolation; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def median(values: list[float]) -> float | None:
    return percentile(values, 50)
