"""Fragmentation: GPUs free in aggregate while a workload that would fit in that
aggregate could not be placed.

At each moment, free = Σ flavor capacity − GPUs held by admitted runs. A moment
is *fragmented* when some workload waits with a placement reason (``choices.
PLACEMENT_REASONS``, e.g. TopologyPlacementFailed) and asks for ≤ free GPUs.
Fragmented GPU-hours = ∫ free over fragmented moments. Blocked demand = Σ GPUs ×
hours of those placement-blocked waits. Everything is piecewise constant, so the
sweep is exact.
"""

from __future__ import annotations

from collections import Counter

from apps.reports.choices import PLACEMENT_REASONS
from apps.reports.compute.records import HOUR, WeekInput


def _clipped(start: float, end: float | None, week: WeekInput) -> tuple[float, float] | None:
    lo, hi = max(start, week.start), week.horizon if end is None else min(end, week.horizon)
    return (lo, hi) if hi > lo else None


def _deltas(week: WeekInput) -> list[tuple[float, int, int]]:
    """(time, Δ allocated GPUs, Δ of the waiting request) — requests as ±gpus markers."""
    events: list[tuple[float, int, int]] = []
    for run in week.runs:
        span = _clipped(run.start, run.end, week)
        if span and run.gpus:
            events += [(span[0], run.gpus, 0), (span[1], -run.gpus, 0)]
    for wait in week.pending:
        span = _clipped(wait.start, wait.end, week) if wait.reason in PLACEMENT_REASONS else None
        if span and wait.gpus:
            events += [(span[0], 0, wait.gpus), (span[1], 0, -wait.gpus)]
    return sorted(events)


def summary(week: WeekInput) -> dict:
    capacity = sum(week.capacity.values())
    if not any(p.reason in PLACEMENT_REASONS for p in week.pending):
        # Nothing waited for a placement: no sweep over every run needed.
        return {
            "capacity_gpus": capacity,
            "fragmented_gpu_hours": 0.0,
            "blocked_demand_gpu_hours": 0.0,
        }
    allocated, waiting = 0, Counter()
    fragmented = blocked = 0.0
    t = week.start
    for when, d_alloc, d_wait in _deltas(week):
        free = capacity - allocated
        smallest = min((g for g, n in waiting.items() if n > 0), default=None)
        if smallest is not None:
            blocked += sum(g * n for g, n in waiting.items()) * (when - t)
            if smallest <= free:
                fragmented += free * (when - t)
        t = when
        allocated += d_alloc
        if d_wait:
            waiting[abs(d_wait)] += 1 if d_wait > 0 else -1
    return {
        "capacity_gpus": capacity,
        "fragmented_gpu_hours": fragmented / HOUR,
        "blocked_demand_gpu_hours": blocked / HOUR,
    }
