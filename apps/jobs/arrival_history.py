"""Work expected to arrive in a quoted job's queue, from the recent rate of submissions.

Every batch job submitted to the job's queue in the last ``RECENT``, at the job's
priority or higher, counts; per priority tier, the rate is their number ÷ the window's
hours, their shape the median GPUs per pod and pods (template, flavor and namespace of
the newest one), and their run time the recorded runs of that template and team
(``run_history``), as for the workloads already there. A tier without recorded runs is
not simulated (an arrival that never ends would block everything after it); the note
names it.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from apps.jobs.eta import HORIZON_MS, MAX_ARRIVALS, ArrivalStream
from apps.jobs.manifests import job_manifest
from apps.jobs.models import BatchJob
from apps.jobs.run_history import expected_run, recorded_runs
from core.stats import percentile

RECENT = timedelta(days=7)


@dataclass(frozen=True)
class Arrivals:
    streams: tuple[ArrivalStream, ...]
    rates: tuple[tuple[str, float], ...]  # (tier, per hour) of the streams
    without_runs: tuple[str, ...]  # tiers submitted lately whose runs are not recorded

    @property
    def note(self) -> str:
        """What the estimate assumed of arrivals ("" when nobody submitted lately)."""
        days = RECENT.days
        parts = []
        if self.rates:
            each = ", ".join(_rate_words(tier, per_hour) for tier, per_hour in self.rates)
            parts.append(f"with arrivals at the last {days} days' rate: {each}")
        if self.without_runs:
            tiers = ", ".join(self.without_runs)
            parts.append(f"no arrivals of {tiers} simulated: no recorded run time")
        return "; ".join(parts)


def _rate_words(tier: str, per_hour: float) -> str:
    words = f"{per_hour:.3g} an hour of {tier}"
    if per_hour * HORIZON_MS / 3_600_000 > MAX_ARRIVALS:
        words += f" (the first {MAX_ARRIVALS} only, to {MAX_ARRIVALS / per_hour:.0f} h from now)"
    return words


def expected_arrivals(job: BatchJob, *, now: datetime, checkpoint_claim: str) -> Arrivals:
    recent = (
        BatchJob.objects.filter(
            queue=job.queue,
            created_at__gt=now - RECENT,
            created_at__lte=now,
            priority_tier__value__gte=job.priority_tier.value,
        )
        .select_related("team", "owner", "queue", "priority_tier", "flavor")
        .order_by("created_at", "pk")
    )
    by_tier: dict[str, list[BatchJob]] = defaultdict(list)
    for row in recent:
        by_tier[row.priority_tier.name].append(row)
    runs = recorded_runs({(g[-1].template_id, g[-1].team_id) for g in by_tier.values()}, now=now)
    streams, rates, without = [], [], []
    hours = RECENT.total_seconds() / 3600
    for tier, rows in sorted(by_tier.items()):
        newest = rows[-1]
        shape = _median_shape(newest, rows)
        run = expected_run(
            runs.get((newest.template_id, newest.team_id), []), shape.max_runtime_seconds
        )
        if run is None:
            without.append(tier)
            continue
        manifest = job_manifest(shape, checkpoint_claim=checkpoint_claim)
        streams.append(ArrivalStream(manifest, len(rows) / hours, run))
        rates.append((tier, len(rows) / hours))
    return Arrivals(tuple(streams), tuple(rates), tuple(without))


def _median_shape(newest: BatchJob, rows: list[BatchJob]) -> BatchJob:
    """An unsaved copy of ``newest`` with the median GPUs per pod, pods and maximum run
    time of ``rows`` (each rounded to a whole number)."""
    shape = copy.copy(newest)
    shape.pk = None
    for name in ("gpus_per_pod", "pods", "max_runtime_seconds"):
        setattr(shape, name, round(percentile([getattr(r, name) for r in rows], 50)))
    shape.sim_duration_seconds = None
    return shape
