"""How long a job or a notebook is expected to run, from recorded runs like it.

A job's run is from its first admission to its end, for jobs of its template and team
that succeeded within ``HISTORY`` (a preempted run's time includes its wait to come
back). A notebook's is from ready to its end, for notebooks of its team and flavor that
were stopped, culled or expired within ``HISTORY``. The expectation is the 50th and the
90th percentile of those times, each at most the job's maximum run time (Kueue stops it
there) or the notebook's lifetime (the portal stops it at expiry). No recorded run: no
expectation, never a guess.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from apps.jobs.models import BatchJob, Notebook
from core.stats import percentile

HISTORY = timedelta(days=28)


@dataclass(frozen=True)
class ExpectedRun:
    """A job's expected run time in seconds, from ``samples`` recorded runs; ``bound_s``
    is its maximum run time."""

    p50_s: float
    p90_s: float
    samples: int
    bound_s: int


def recorded_runs(pairs: set[tuple[int, int]], *, now: datetime) -> dict[tuple[int, int], list]:
    """(template id, team id) → the run times (seconds) of its jobs that succeeded lately."""
    rows = (
        BatchJob.objects.succeeded_since(now - HISTORY)
        .filter(template_id__in={t for t, _ in pairs}, team_id__in={t for _, t in pairs})
        .values_list("template_id", "team_id", "admitted_at", "ended_at")
    )
    return _seconds_by_pair(rows)


def expected_run(runs: list[float], max_runtime_s: int) -> ExpectedRun | None:
    """The expectation from ``runs`` for a job that may run at most ``max_runtime_s``."""
    if not runs:
        return None
    p50, p90 = percentile(runs, 50), percentile(runs, 90)
    return ExpectedRun(min(p50, max_runtime_s), min(p90, max_runtime_s), len(runs), max_runtime_s)


def expected_runs_of(jobs: list[BatchJob], *, now: datetime) -> dict[int, ExpectedRun | None]:
    """Job id → its expectation, for each of ``jobs`` (one query for all)."""
    runs = recorded_runs({(j.template_id, j.team_id) for j in jobs}, now=now)
    return {
        j.pk: expected_run(runs.get((j.template_id, j.team_id), []), j.max_runtime_seconds)
        for j in jobs
    }


def recorded_lifetimes(
    pairs: set[tuple[int, int]], *, now: datetime
) -> dict[tuple[int, int], list]:
    """(team id, flavor id) → the lifetimes (seconds) of its notebooks that ended lately."""
    rows = (
        Notebook.objects.ended_since(now - HISTORY)
        .filter(team_id__in={t for t, _ in pairs}, flavor_id__in={f for _, f in pairs})
        .values_list("team_id", "flavor_id", "ready_at", "ended_at")
    )
    return _seconds_by_pair(rows)


def _seconds_by_pair(rows) -> dict[tuple[int, int], list]:
    """(a, b, start, end) rows → (a, b) → the seconds from each start to its end."""
    runs: dict[tuple[int, int], list] = defaultdict(list)
    for a, b, start, end in rows:
        runs[(a, b)].append((end - start).total_seconds())
    return runs
