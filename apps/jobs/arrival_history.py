"""Work expected to arrive in a quoted job's cohort, from the recent rate of submissions.

Every batch job submitted in the last ``RECENT`` counts, to the job's own queue at the
job's priority or higher (lower ones queue behind it), and to every other queue of its
cohort tree (the same root cohort) at any priority: those use their own quota first,
which is what the job would borrow, whatever their priority. Per queue and priority
tier, the rate is their number ÷ the span they were counted over (``counted_span``),
their shape the median GPUs per pod and pods (template, flavor and namespace of the
newest one), and their run time the recorded runs of that template and team
(``run_history``), as for the workloads already there. A stream without recorded runs
is not simulated (an arrival that never ends would block everything after it); the
note names it.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Min, Q

from apps.jobs.eta import HORIZON_MS, MAX_ARRIVALS, ArrivalStream
from apps.jobs.manifests import job_manifest
from apps.jobs.models import BatchJob
from apps.jobs.run_history import expected_run, recorded_runs
from apps.queues.models import Cohort, Queue
from core.stats import percentile

RECENT = timedelta(days=7)
# A portal younger than RECENT has seen submissions only since its first job, so the
# rate is over that span; but at least MIN_SPAN, so that the first job or two do not
# make a rate of dozens an hour (one job in the first minute counts as 6 an hour, not
# 60). Ten minutes is longer than the admission model's reaction (seconds) and than most
# waits for room on a busy queue, and short enough that a portal's first hour of use
# already speaks for itself.
MIN_SPAN = timedelta(minutes=10)


@dataclass(frozen=True)
class Arrivals:
    streams: tuple[ArrivalStream, ...]
    rates: tuple[tuple[str, float], ...]  # (tier, or "tier in queue q", per hour)
    without_runs: tuple[str, ...]  # the same names, submitted lately, runs not recorded
    span: timedelta = RECENT  # what the rates were counted over

    @property
    def note(self) -> str:
        """What the estimate assumed of arrivals ("" when nobody submitted lately)."""
        parts = []
        if self.rates:
            each = ", ".join(f"{per_hour:.3g} an hour of {name}" for name, per_hour in self.rates)
            parts.append(f"with arrivals at {_span_words(self.span)}: {each}{self._cut_words}")
        if self.without_runs:
            names = ", ".join(self.without_runs)
            parts.append(f"no arrivals of {names} simulated: no recorded run time")
        return "; ".join(parts)

    @property
    def _cut_words(self) -> str:
        per_hour = sum(rate for _, rate in self.rates)
        if per_hour * HORIZON_MS / 3_600_000 <= MAX_ARRIVALS:
            return ""
        return (
            f" (the first {MAX_ARRIVALS} in all only, to {MAX_ARRIVALS / per_hour:.3g} h from now)"
        )


def _span_words(span: timedelta) -> str:
    if span >= RECENT:
        return f"the last {RECENT.days} days' rate"
    if span <= MIN_SPAN:
        minutes = round(MIN_SPAN.total_seconds() / 60)
        return f"the rate of the last {minutes} minutes (the shortest span counted)"
    hours = span.total_seconds() / 3600
    return f"the rate of the {hours:.3g} h since the portal's first job"


def counted_span(first_job: datetime | None, *, now: datetime) -> timedelta:
    """What submissions are counted over: ``RECENT``, or the time since the portal's
    ``first_job`` when that is shorter, but never under ``MIN_SPAN``."""
    if first_job is None:
        return RECENT
    return min(RECENT, max(MIN_SPAN, now - first_job))


def cohort_mates(queue: Queue) -> list[int]:
    """Ids of the other queues of ``queue``'s cohort tree (the same root cohort)."""
    if queue.cohort_id is None:
        return []
    parent_of = dict(Cohort.objects.values_list("pk", "parent_id"))

    def root(cohort: int) -> int:
        seen = set()
        while parent_of.get(cohort) and cohort not in seen:
            seen.add(cohort)
            cohort = parent_of[cohort]
        return cohort

    top = root(queue.cohort_id)
    tree = [pk for pk in parent_of if root(pk) == top]
    return list(
        Queue.objects.filter(cohort_id__in=tree).exclude(pk=queue.pk).values_list("pk", flat=True)
    )


def expected_arrivals(job: BatchJob, *, now: datetime, checkpoint_claim: str) -> Arrivals:
    first = BatchJob.objects.aggregate(first=Min("created_at"))["first"]
    span = counted_span(first, now=now)
    competing = Q(queue=job.queue, priority_tier__value__gte=job.priority_tier.value) | Q(
        queue_id__in=cohort_mates(job.queue)
    )
    recent = (
        BatchJob.objects.filter(competing, created_at__gt=now - span, created_at__lte=now)
        .select_related("team", "owner", "queue", "priority_tier", "flavor")
        .order_by("created_at", "pk")
    )
    by_stream: dict[str, list[BatchJob]] = defaultdict(list)
    for row in recent:
        by_stream[_stream_name(row, job)].append(row)
    runs = recorded_runs({(g[-1].template_id, g[-1].team_id) for g in by_stream.values()}, now=now)
    streams, rates, without = [], [], []
    hours = span.total_seconds() / 3600
    for name, rows in sorted(by_stream.items(), key=lambda item: (" in " in item[0], item[0])):
        newest = rows[-1]
        shape = _median_shape(newest, rows)
        run = expected_run(
            runs.get((newest.template_id, newest.team_id), []), shape.max_runtime_seconds
        )
        if run is None:
            without.append(name)
            continue
        manifest = job_manifest(shape, checkpoint_claim=checkpoint_claim)
        streams.append(ArrivalStream(manifest, len(rows) / hours, run))
        rates.append((name, len(rows) / hours))
    return Arrivals(tuple(streams), tuple(rates), tuple(without), span)


def _stream_name(row: BatchJob, job: BatchJob) -> str:
    """The tier for the job's own queue; "tier in queue q" for another of its cohort."""
    if row.queue_id == job.queue_id:
        return row.priority_tier.name
    return f"{row.priority_tier.name} in queue {row.queue.name}"


def _median_shape(newest: BatchJob, rows: list[BatchJob]) -> BatchJob:
    """An unsaved copy of ``newest`` with the median GPUs per pod, pods and maximum run
    time of ``rows`` (each rounded to a whole number)."""
    shape = copy.copy(newest)
    shape.pk = None
    for name in ("gpus_per_pod", "pods", "max_runtime_seconds"):
        setattr(shape, name, round(percentile([getattr(r, name) for r in rows], 50)))
    shape.sim_duration_seconds = None
    return shape
