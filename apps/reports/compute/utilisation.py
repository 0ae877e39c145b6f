"""Allocated vs used GPU-hours.

Used GPU-hours of a run = allocated GPU-hours × the workload's mean GPU busy
ratio that week (DCGM). Runs without DCGM data count as allocated but not as
measured; ``coverage`` says how much of the allocation had data. Idle = measured
allocation − used; notebooks are shown on their own because they idle most.
"""

from __future__ import annotations

from collections import defaultdict

from apps.reports.compute.records import WeekInput, run_gpu_hours

FIELDS = (
    "allocated_gpu_hours",
    "measured_gpu_hours",
    "used_gpu_hours",
    "idle_gpu_hours",
    "notebook_idle_gpu_hours",
    "energy_kwh",
)


def team_rows(week: WeekInput, run_hours: list[float] | None = None) -> list[dict]:
    """One row per team; ``run_hours``: ``run_gpu_hours(week)`` when the caller has it."""
    rows: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(FIELDS, 0.0))
    energy_seen: set[str] = set()
    run_hours = run_gpu_hours(week) if run_hours is None else run_hours
    for run, spent in zip(week.runs, run_hours, strict=True):
        row = rows[run.team]
        row["allocated_gpu_hours"] += spent
        usage = week.usage.get(run.uid)
        if usage is not None and usage.util is not None:
            row["measured_gpu_hours"] += spent
            row["used_gpu_hours"] += spent * usage.util
            row["idle_gpu_hours"] += spent * (1 - usage.util)
            if run.notebook:
                row["notebook_idle_gpu_hours"] += spent * (1 - usage.util)
        if usage is not None and usage.energy_kwh and run.uid not in energy_seen:
            energy_seen.add(run.uid)  # energy is per workload-week, not per run
            row["energy_kwh"] += usage.energy_kwh
    return [{"team": team, **_with_ratios(rows[team])} for team in sorted(rows)]


def _with_ratios(row: dict[str, float]) -> dict:
    allocated, measured = row["allocated_gpu_hours"], row["measured_gpu_hours"]
    return {
        **row,
        "coverage": measured / allocated if allocated else None,
        "utilisation": row["used_gpu_hours"] / measured if measured else None,
    }
