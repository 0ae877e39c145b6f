"""The three classes of work (interactive, inference, batch) and inference availability.

A workload's class comes from facts every Kueue cluster records: a run at an
inference-only tier is an inference service (the portal lets nothing else use those
tiers, docs/inference.md); another StatefulSet's is a notebook (interactive); the rest
is batch. An inference service's availability in the week is the share of its lifetime
in the week during which Kueue had it admitted: admission is all-or-nothing for its pod
group, so admitted means every replica admitted.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from apps.reports.compute.records import HOUR, Run, WeekInput

INTERACTIVE, INFERENCE, BATCH = "interactive", "inference", "batch"
CLASSES = (INTERACTIVE, INFERENCE, BATCH)


def workload_class(*, tier: str, notebook: bool, inference_tiers: frozenset[str]) -> str:
    if tier in inference_tiers:
        return INFERENCE
    return INTERACTIVE if notebook else BATCH


def class_gpu_hours(
    runs: list[Run], run_hours: list[float], inference_tiers: frozenset[str]
) -> dict[str, float]:
    """GPU-hours per class, every class present (0.0 when none ran)."""
    hours = dict.fromkeys(CLASSES, 0.0)
    for run, spent in zip(runs, run_hours, strict=True):
        kind = workload_class(tier=run.tier, notebook=run.notebook, inference_tiers=inference_tiers)
        hours[kind] += spent
    return hours


@dataclass(frozen=True)
class Lifetime:
    """An inference service's Workload: who, and from creation to its end (None: alive)."""

    uid: str
    team: str
    name: str
    gpus: int
    created: float
    finished: float | None = None


def availability(
    lifetime: Lifetime, admitted: list[tuple[float, float | None]], start: float, end: float
) -> dict:
    """Its row: hours alive in [start, end), hours admitted then, and their ratio
    (None when it was not alive in the week)."""
    alive_from = max(lifetime.created, start)
    alive_to = end if lifetime.finished is None else min(lifetime.finished, end)
    alive = max(0.0, alive_to - alive_from)
    up = sum(
        max(0.0, min(alive_to, end if stop is None else stop) - max(alive_from, begin))
        for begin, stop in admitted
    )
    return {
        "team": lifetime.team,
        "service": lifetime.name,
        "gpus": lifetime.gpus,
        "alive_hours": alive / HOUR,
        "admitted_hours": up / HOUR,
        "availability": up / alive if alive else None,
    }


def inference_rows(week: WeekInput, lifetimes: list[Lifetime]) -> list[dict]:
    """One availability row per inference service alive in the week, worst first."""
    runs = defaultdict(list)
    for run in week.runs:
        runs[run.uid].append((run.start, run.end))
    end = week.horizon
    rows = [availability(life, runs[life.uid], week.start, end) for life in lifetimes]
    rows = [row for row in rows if row["alive_hours"] > 0]
    return sorted(rows, key=lambda r: (r["availability"], r["team"], r["service"]))
