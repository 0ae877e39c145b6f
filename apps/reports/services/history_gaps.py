"""History gaps: storing the interval the recorder missed and what Events rebuild of it."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q

from apps.reports import kueue_events
from apps.reports.models import HistoryGap, WorkloadRecord, WorkloadTransition
from apps.reports.services import level_rollup
from informer.workload import Transition

# Event and condition times are whole seconds, written by different calls of Kueue's
# clock: an Event a second off a condition already recorded is the same step.
SAME_STEP = timedelta(seconds=1)


@transaction.atomic
def record_history_gap(
    start: datetime, end: datetime, cause: str, events: list[dict] | None
) -> HistoryGap:
    """Store the gap [start, end] and the transitions Kueue's Events show inside it.

    ``events``: the Workload Events the cluster still had at the relist, or None
    when they could not be read (then nothing is rebuilt and the gap stays unknown).
    Rebuilt rows are marked ``rebuilt``; replays add nothing (unique key), and an
    Event within a second of a recorded step of the same type adds nothing either.
    Workloads the portal never saw (created and deleted inside the gap) are skipped:
    an Event does not say what they asked for.
    """
    events = events or []
    # Event times are whole seconds and the clocks of Kueue and of our recorder differ by a
    # fraction of one: a step just after the gap began may carry the second before it.
    earliest = start.replace(microsecond=0) - SAME_STEP
    found = [
        (uid, fact)
        for event in events
        for uid, fact in kueue_events.transitions(event)
        if earliest <= fact.at <= end
    ]
    records = dict(
        WorkloadRecord.objects.filter(uid__in={uid for uid, _ in found}).values_list("uid", "pk")
    )
    known = _recorded_steps(records.values(), earliest - SAME_STEP)
    rows = [
        WorkloadTransition(
            workload_id=records[uid], type=f.type, at=f.at, reason=f.reason[:100],
            message=f.message, detail=f.detail, rebuilt=True,
        )
        for uid, f in found
        if uid in records and not _near(known, records[uid], f.type, f.at)
    ]  # fmt: skip
    mine = WorkloadTransition.objects.filter(workload_id__in=list(records.values()), rebuilt=True)
    before = mine.count()
    levels = level_rollup.changes_of(records.values())
    WorkloadTransition.objects.bulk_create(rows, ignore_conflicts=True)
    level_rollup.apply_since(levels, records.values())
    _earlier_first_admissions(rows)
    return HistoryGap.objects.create(
        start=start,
        end=end,
        cause=cause,
        events_from=kueue_events.oldest(events),
        rebuilt=mine.count() - before,
    )


def _earlier_first_admissions(rows: list[WorkloadTransition]) -> None:
    """A first admission inside the gap, later evicted, is older than the one the relist
    showed: the summary (what-if reads it) takes the earliest."""
    earliest: dict[int, datetime] = {}
    for row in rows:
        if row.type == Transition.ADMITTED:
            earliest[row.workload_id] = min(row.at, earliest.get(row.workload_id, row.at))
    for pk, at in earliest.items():
        later = Q(first_admitted_at__isnull=True) | Q(first_admitted_at__gt=at)
        WorkloadRecord.objects.filter(later, pk=pk).update(first_admitted_at=at)


def _recorded_steps(pks, since: datetime) -> dict[tuple[int, str], list[datetime]]:
    steps: dict[tuple[int, str], list[datetime]] = {}
    rows = WorkloadTransition.objects.filter(workload_id__in=list(pks), at__gte=since)
    for pk, kind, at in rows.values_list("workload_id", "type", "at"):
        steps.setdefault((pk, kind), []).append(at)
    return steps


def _near(known: dict, pk: int, kind: str, at: datetime) -> bool:
    return any(abs(other - at) <= SAME_STEP for other in known.get((pk, kind), ()))
