"""A priority tier's recorded preemptions and admitted hours, for a quote's risk.

Counted over every batch job of the tier the portal submitted, in every queue (a tier's
work is spread thin over queues, and a queue's own few runs say little), over the last
``run_history.HISTORY``: the preemptions its jobs' recorded history shows, and the hours
they were admitted within the window (a run from its admission to its preemption,
eviction, end or cancellation, or to now while it runs).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from django.db.models import Q

from apps.jobs.choices import JobEventKind
from apps.jobs.models import BatchJob, JobEvent
from apps.jobs.preemption_risk import TierHistory, admitted_seconds
from apps.jobs.run_history import HISTORY
from apps.queues.models import PriorityTier


def tier_history(tier: PriorityTier, *, now: datetime) -> TierHistory:
    since = now - HISTORY
    jobs = dict(
        BatchJob.objects.filter(priority_tier=tier, admitted_at__isnull=False)
        .filter(Q(ended_at__isnull=True) | Q(ended_at__gte=since))
        .values_list("pk", "ended_at")
    )
    steps: dict[int, list] = defaultdict(list)
    for job_id, at, kind in JobEvent.objects.filter(job_id__in=jobs).values_list(
        "job_id", "at", "kind"
    ):
        steps[job_id].append((at, kind))
    seconds = sum(
        admitted_seconds(steps[job_id], open_until=jobs[job_id] or now, since=since, now=now)
        for job_id in jobs
    )
    preemptions = sum(
        1
        for job_steps in steps.values()
        for at, kind in job_steps
        if kind == JobEventKind.PREEMPTED and since <= at <= now
    )
    days = HISTORY.days
    scope = f"batch jobs of tier {tier.name} in every queue, last {days} days"
    return TierHistory(tier.name, preemptions, seconds / 3600, scope)
