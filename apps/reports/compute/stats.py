"""Exact percentiles and Kueue's histogram view of the same numbers.

Exact percentiles use linear interpolation between closest ranks (Hyndman & Fan
type 7, NumPy's default): for sorted x of n values, h = (n − 1)·p and
P = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).

Kueue's ``kueue_admission_wait_time_seconds`` has 16 buckets: 1, then 2.5·2^k
(2.5, 5, 10 … 40960 s), plus +Inf. ``histogram_quantile`` (Prometheus 2.x)
finds the bucket holding rank q·n, interpolates linearly inside it (lower bound
0 for the first bucket) and answers the highest finite bound when the rank falls
in +Inf — so any wait beyond ~11.4 h is reported as 40960 s.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

KUEUE_WAIT_BUCKETS: tuple[float, ...] = (1.0,) + tuple(2.5 * 2**k for k in range(15))
PERCENTILES: tuple[float, ...] = (0.5, 0.9, 0.95, 0.99)


def percentile(sorted_values: Sequence[float], p: float) -> float | None:
    """Type-7 percentile of already-sorted values; None when empty."""
    if not sorted_values:
        return None
    h = (len(sorted_values) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def bucket_counts(values: Sequence[float], bounds: Sequence[float] = KUEUE_WAIT_BUCKETS):
    """Cumulative counts per upper bound (``le``), +Inf last, as Prometheus stores them."""
    sorted_values = sorted(values)
    counts = [bisect.bisect_right(sorted_values, b) for b in bounds]
    return [*counts, len(sorted_values)]


def histogram_quantile(q: float, bounds: Sequence[float], cumulative: Sequence[float]):
    """Prometheus's ``histogram_quantile`` over cumulative counts (last one is +Inf)."""
    total = cumulative[-1] if cumulative else 0
    if total == 0:
        return None
    rank = q * total
    b = next((i for i, c in enumerate(cumulative[:-1]) if c >= rank), len(bounds))
    if b == len(bounds):
        return bounds[-1]
    lower = 0.0 if b == 0 else bounds[b - 1]
    below = 0.0 if b == 0 else cumulative[b - 1]
    in_bucket = cumulative[b] - below
    return lower + (bounds[b] - lower) * ((rank - below) / in_bucket)


def kueue_estimate(values: Sequence[float], q: float) -> float | None:
    return histogram_quantile(q, KUEUE_WAIT_BUCKETS, bucket_counts(values))


def summarize(values: list[float]) -> dict:
    """Exact p50/p90/p95/p99/max, Kueue's histogram estimate of each, and the error."""
    ordered = sorted(values)
    counts = bucket_counts(ordered)
    row: dict = {"count": len(ordered), "max": ordered[-1] if ordered else None}
    for p in PERCENTILES:
        key = f"p{round(p * 100)}"
        exact = percentile(ordered, p)
        estimate = histogram_quantile(p, KUEUE_WAIT_BUCKETS, counts)
        row[key] = exact
        row[f"{key}_kueue"] = estimate
        row[f"{key}_error"] = None if exact is None else estimate - exact
    return row
