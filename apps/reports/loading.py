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
from apps.queues.quantity import parse_quantity
from apps.reports.compute.records import QueueQuota, UsageFact, WeekInput
from apps.reports.compute.weeks import week_bounds
from apps.reports.extract import is_gpu_resource
from apps.reports.models import WorkloadRecord, WorkloadTransition, WorkloadUsage
from apps.reports.timeline import RANK, WorkloadInfo, replay

CHUNK = 20_000
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
    return data


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
    """PostgreSQL: one row per workload with its steps as parallel arrays, in replay
    order, epoch seconds computed by the server and JSON decoded only for the details
    the replay reads, through a named server-side cursor. A fifth of the tuples of one
    row per transition, and the arrays are decoded in C."""
    ranks = " ".join(f"WHEN '{kind}' THEN {rank}" for kind, rank in RANK.items())
    order = f"ORDER BY t.at, CASE t.type {ranks} ELSE 99 END"
    subquery, params = records.order_by().values("pk").query.sql_with_params()
    sql = f"""
        SELECT t.workload_id, array_agg(t.type {order}),
               array_agg(EXTRACT(EPOCH FROM t.at)::float8 {order}),
               array_agg(t.reason {order}),
               array_agg(CASE WHEN t.type IN ('quota_reserved', 'preempted')
                              THEN t.detail::text END {order})
        FROM reports_workloadtransition t
        WHERE t.workload_id IN ({subquery}) AND t.at < %s
        GROUP BY t.workload_id ORDER BY t.workload_id"""
    loads = json.loads
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, [*params, end])
        while rows := cursor.fetchmany(CHUNK):
            for pk, kinds, ats, reasons, details in rows:
                if any(details):
                    details = [loads(d) if d else None for d in details]
                yield pk, zip(kinds, ats, reasons, details, strict=True)


def quotas() -> list[QueueQuota]:
    """Current GPU quotas (the report uses today's policy for entitlements)."""
    entries = QuotaEntry.objects.select_related("queue__team", "queue__cohort", "flavor")
    return [
        QueueQuota(
            queue=e.queue.name,
            team=e.queue.team.slug if e.queue.team else "",
            cohort=e.queue.cohort.name if e.queue.cohort else "",
            flavor=e.flavor.name,
            nominal=float(parse_quantity(e.nominal)),
            lending_limit=None
            if e.lending_limit in (None, "")
            else float(parse_quantity(e.lending_limit)),
            weight=float(parse_quantity(e.queue.fair_weight)),
        )
        for e in entries
        if is_gpu_resource(e.resource)
    ]


def capacity() -> dict[str, float]:
    totals: dict[str, float] = {}
    for c in FlavorCapacity.objects.select_related("flavor"):
        if is_gpu_resource(c.resource):
            totals[c.flavor.name] = totals.get(c.flavor.name, 0.0) + float(
                parse_quantity(c.capacity)
            )
    return totals


def stored_usage(week: str) -> dict[str, UsageFact]:
    rows = WorkloadUsage.objects.filter(week=week).values_list(
        "workload__uid", "gpu_util", "memory_used_mib", "power_watts", "energy_kwh"
    )
    return {uid: UsageFact(u, m, p, e) for uid, u, m, p, e in rows.iterator(chunk_size=CHUNK)}
