"""Read one ISO week of recorded history into the plain records ``compute`` needs.

Streams transitions with a server-side cursor (``iterator``) in workload order
and replays each workload as soon as its rows are complete, so memory holds the
week's runs and waits, never the raw event rows.
"""

from __future__ import annotations

import json
from datetime import datetime
from itertools import groupby

from django.db import connection
from django.db.models import TextField
from django.db.models.functions import Cast

from apps.queues.models import FlavorCapacity, QuotaEntry
from apps.queues.quantity import parse_units
from apps.reports.compute.records import Downtime, QueueQuota, UsageFact, WeekInput
from apps.reports.compute.weeks import week_bounds
from apps.reports.models import HistoryGap, WorkloadRecord, WorkloadTransition, WorkloadUsage
from apps.reports.timeline import RANK, WorkloadInfo, replay
from informer.objects import is_gpu_resource
from informer.workload import Transition

CHUNK = 20_000
# The steps whose reason ``timeline.replay`` reads (a pending span's, a preemption's):
# the others' reasons are never looked at, so the build does not fetch them.
_REASON_READ = ", ".join(f"'{kind.value}'" for kind in (Transition.PENDING, Transition.PREEMPTED))
NOTEBOOK_OWNERS = ("StatefulSet",)


def load_week(week: str, *, now: datetime | None = None, half_life_hours: float = 168.0):
    """The ``WeekInput`` of ``week`` (usage and prices are filled in by the caller)."""
    start, end = week_bounds(week)
    data = WeekInput(
        start=start.timestamp(),
        end=end.timestamp(),
        half_life_hours=half_life_hours,
        now=None if now is None else now.timestamp(),
    )
    records = WorkloadRecord.objects.overlapping(start, end)
    infos = _infos(records)
    data.owners = {info.uid: (info.team, info.queue) for info in infos.values()}
    _replay_all(data, infos, records, end)
    data.quotas = quotas()
    data.capacity = capacity()
    data.usage = stored_usage(week)
    data.downtime = downtime(end)
    return data


def downtime(end: datetime) -> list[Downtime]:
    """The recorder's history gaps before ``end``: earlier ones matter too, to a wait
    that began in one and ends in this week."""
    gaps = HistoryGap.objects.filter(start__lt=end)
    return [Downtime(g.start.timestamp(), g.end.timestamp(), g.covered_by_events) for g in gaps]


def _infos(records) -> dict[int, WorkloadInfo]:
    fields = (
        "pk", "uid", "team_slug", "cluster_queue", "local_queue", "priority_class",
        "size_class", "gpus", "owner_kind",
    )  # fmt: skip
    rows = records.order_by().annotate(flavors_text=Cast("gpus_by_flavor", TextField()))
    infos = {}
    for pk, uid, team, cq, lq, tier, size, gpus, kind, text in rows.values_list(
        *fields, "flavors_text"
    ).iterator(chunk_size=CHUNK):
        infos[pk] = WorkloadInfo(
            uid, team, cq or lq, tier, size, gpus, kind in NOTEBOOK_OWNERS, text
        )
    return infos


def _replay_all(data: WeekInput, infos: dict[int, WorkloadInfo], records, end) -> None:
    for pk, steps in _steps(records, end):
        runs, waits, pending = replay(infos[pk], steps)
        data.runs += runs
        data.waits += waits
        data.pending += pending


def _steps(records, end):
    """(workload, [(type, at seconds, reason, detail)]) in replay order, per workload."""
    if connection.vendor == "postgresql":
        yield from _steps_sql(records, end)
        return
    rows = (
        WorkloadTransition.objects.filter(workload__in=records.values("pk"), at__lt=end)
        .order_by("workload_id", "at")
        .values_list("workload_id", "type", "at", "reason", "detail")
        .iterator(chunk_size=CHUNK)
    )
    for pk, group in groupby(rows, key=lambda row: row[0]):
        steps = sorted(
            ((kind, at.timestamp(), reason, detail) for _, kind, at, reason, detail in group),
            key=lambda s: (s[1], RANK.get(s[0], 99)),
        )
        yield pk, steps


def _steps_sql(records, end):
    """PostgreSQL: one row per workload with its steps as parallel arrays in replay
    order — a fifth of the tuples of one row per transition, decoded in C — with epoch
    seconds computed by the server, and reasons and JSON details sent only for the steps
    whose reason or detail the replay reads, through a named server-side cursor."""
    ranks = " ".join(f"WHEN '{kind}' THEN {rank}" for kind, rank in RANK.items())
    subquery, params = records.order_by().values("pk").query.sql_with_params()
    # array_agg keeps the order of a sorted subquery (GroupAggregate over the sort);
    # one ORDER BY per aggregate would sort every workload's rows four more times.
    sql = f"""
        SELECT workload_id, array_agg(type), array_agg(at), array_agg(reason), array_agg(detail)
        FROM (
            SELECT t.workload_id, t.type, EXTRACT(EPOCH FROM t.at)::float8 AS at,
                   CASE WHEN t.type IN ({_REASON_READ}) THEN t.reason ELSE '' END AS reason,
                   CASE WHEN t.type IN ('quota_reserved', 'preempted') THEN t.detail::text END
                       AS detail
            FROM reports_workloadtransition t
            WHERE t.workload_id IN ({subquery}) AND t.at < %s
            ORDER BY t.workload_id, t.at, CASE t.type {ranks} ELSE 99 END
        ) steps
        GROUP BY workload_id ORDER BY workload_id"""
    parsed: dict[str, dict] = {}  # most details repeat ({"flavors": {"h100": 1}}): parse once
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, [*params, end])
        while rows := cursor.fetchmany(CHUNK):
            for pk, kinds, ats, reasons, details in rows:
                if any(details):
                    details = [_parse(d, parsed) if d else None for d in details]
                steps = zip(kinds, ats, reasons, details, strict=True)
                if ats != sorted(ats):  # the server's aggregation reordered them
                    steps = sorted(steps, key=lambda s: (s[1], RANK.get(s[0], 99)))
                yield pk, steps


def _parse(text: str, parsed: dict[str, dict]) -> dict:
    """``json.loads`` remembered per text; the replay only reads the dicts it gets."""
    value = parsed.get(text)
    if value is None:
        value = parsed[text] = json.loads(text)
    return value


def quotas() -> list[QueueQuota]:
    """Current GPU quotas (the report uses today's policy for entitlements)."""
    entries = QuotaEntry.objects.select_related("queue__team", "queue__cohort", "flavor")
    return [
        QueueQuota(
            queue=e.queue.name,
            team=e.queue.team.slug if e.queue.team else "",
            cohort=e.queue.cohort.name if e.queue.cohort else "",
            flavor=e.flavor.name,
            nominal=float(parse_units(e.nominal)),
            lending_limit=None
            if e.lending_limit in (None, "")
            else float(parse_units(e.lending_limit)),
            weight=float(parse_units(e.queue.fair_weight)),
        )
        for e in entries
        if is_gpu_resource(e.resource)
    ]


def capacity() -> dict[str, float]:
    totals: dict[str, float] = {}
    for c in FlavorCapacity.objects.select_related("flavor"):
        if is_gpu_resource(c.resource):
            totals[c.flavor.name] = totals.get(c.flavor.name, 0.0) + float(parse_units(c.capacity))
    return totals


def stored_usage(week: str) -> dict[str, UsageFact]:
    rows = WorkloadUsage.objects.filter(week=week).values_list(
        "workload__uid", "gpu_util", "memory_used_mib", "power_watts", "energy_kwh"
    )
    return {uid: UsageFact(u, m, p, e) for uid, u, m, p, e in rows.iterator(chunk_size=CHUNK)}
