"""Read one ISO week of recorded history into the plain records ``compute`` needs.

Streams the week's workloads in workload order through a server-side cursor (the next
chunk fetched on a second thread while this one replays the current one) and replays
each as soon as its steps are complete, so memory holds the week's runs and waits,
never the raw event rows: on PostgreSQL one query sends each workload's record with
its steps aggregated (``_histories_sql``); other databases read the records, then the
transitions row by row (``_steps``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
from functools import partial
from itertools import groupby, repeat

from django.db import connection, transaction
from django.db.models import TextField
from django.db.models.functions import Cast

from apps.queues.models import FlavorCapacity, PriorityTier, QuotaEntry
from apps.queues.quantity import parse_units
from apps.reports.compute.classes import Lifetime
from apps.reports.compute.records import Downtime, QueueQuota, UsageFact, WeekInput
from apps.reports.compute.weeks import week_bounds
from apps.reports.models import HistoryGap, WorkloadRecord, WorkloadTransition, WorkloadUsage
from apps.reports.read_ahead import chunks_ahead
from apps.reports.timeline import RANK, WorkloadInfo, replay
from informer.objects import is_gpu_resource
from informer.workload import Transition

CHUNK = 20_000
# The steps whose reason ``timeline.replay`` reads (a pending span's, a preemption's):
# the others' reasons are never looked at, so the build does not fetch them.
_REASON_KINDS = frozenset(kind.value for kind in (Transition.PENDING, Transition.PREEMPTED))
# The steps whose JSON detail it reads (a reservation's flavors, a preemptor).
_DETAIL_KINDS = frozenset(kind.value for kind in (Transition.QUOTA_RESERVED, Transition.PREEMPTED))
_PREEMPTED, _RESERVED = Transition.PREEMPTED.value, Transition.QUOTA_RESERVED.value
_REASON_READ = ", ".join(f"'{kind}'" for kind in sorted(_REASON_KINDS))
_DETAIL_READ = ", ".join(f"'{kind}'" for kind in sorted(_DETAIL_KINDS))
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
    infos = _replay_all(data, records, end)
    data.owners = {info.uid: (info.team, info.queue) for info in infos.values()}
    data.quotas = quotas()
    data.capacity = capacity()
    data.usage = stored_usage(week)
    data.downtime = downtime(end)
    data.inference_tiers = inference_tiers()
    data.inference = inference_lifetimes(records, data.inference_tiers)
    return data


def inference_tiers() -> frozenset[str]:
    return frozenset(
        PriorityTier.objects.filter(inference_only=True).values_list("name", flat=True)
    )


def inference_lifetimes(records, tiers: frozenset[str]) -> list[Lifetime]:
    """The week's inference services (Workloads at an inference-only tier)."""
    rows = records.filter(priority_class__in=tiers).values_list(
        "uid", "team_slug", "owner_name", "name", "gpus", "created_at", "finished_at"
    )
    return [
        Lifetime(uid, team, owner or name, gpus, created.timestamp(), _seconds(finished))
        for uid, team, owner, name, gpus, created, finished in rows.order_by("uid")
    ]


def _seconds(at: datetime | None) -> float | None:
    return None if at is None else at.timestamp()


def downtime(end: datetime) -> list[Downtime]:
    """The recorder's history gaps before ``end``: earlier ones matter too, to a wait
    that began in one and ends in this week."""
    gaps = HistoryGap.objects.filter(start__lt=end)
    return [Downtime(g.start.timestamp(), g.end.timestamp(), g.covered_by_events) for g in gaps]


_INFO_FIELDS = (
    "pk", "uid", "team_slug", "cluster_queue", "local_queue", "priority_class", "size_class",
    "gpus", "owner_kind", "flavors_text",
)  # fmt: skip


def _record_rows(records):
    """The records' columns a ``WorkloadInfo`` is made of, primary key first."""
    rows = records.order_by().annotate(flavors_text=Cast("gpus_by_flavor", TextField()))
    return rows.values_list(*_INFO_FIELDS)


def _info(uid, team, cluster_queue, local_queue, tier, size, gpus, owner_kind, flavors_text):
    notebook = owner_kind in NOTEBOOK_OWNERS
    queue = cluster_queue or local_queue
    return WorkloadInfo(uid, team, queue, tier, size, gpus, notebook, flavors_text)


def _infos(records) -> dict[int, WorkloadInfo]:
    rows = _record_rows(records).iterator(chunk_size=CHUNK)
    return {pk: _info(*columns) for pk, *columns in rows}


def _replay_all(data: WeekInput, records, end) -> dict[int, WorkloadInfo]:
    """Every workload's runs, waits and pending spans into ``data``, in workload order
    (the order the sections sum them in); the workloads' infos by primary key."""
    if connection.vendor == "postgresql":
        infos = {}
        histories = _histories_sql(records, end)
    else:
        infos = _infos(records)
        histories = ((pk, infos[pk], steps) for pk, steps in _steps(records, end))
    # The lists' extend methods bound once: ~200,000 workloads are added.
    add_runs, add_waits, add_pending = data.runs.extend, data.waits.extend, data.pending.extend
    for pk, info, steps in histories:
        infos[pk] = info
        runs, waits, pending = replay(info, steps)
        add_runs(runs)
        add_waits(waits)
        add_pending(pending)
    return infos


def _steps(records, end):
    """(workload, [(type, at seconds, reason, detail)]) in replay order, per workload,
    from one row per transition (the path of databases other than PostgreSQL)."""
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


def _histories_sql(records, end):
    """PostgreSQL: (workload, its info, its steps in replay order) in one query, one row
    per workload, in the shapes that cost least to send and decode (measured at 1M
    transitions): the types as one space-separated string (a text array makes one
    Python string per element), epoch seconds as a float8 array in binary (as text, the
    server's float formatting alone cost a second), and only the reasons and JSON
    details the replay reads, in step order (of a preemption's detail only the
    preemptor's uid: it differs every time, so parsing it as JSON would cost a parse per
    preemption), through a named server-side cursor. A workload without a step before
    ``end`` comes with no steps."""
    ranks = " ".join(f"WHEN '{kind}' THEN {rank}" for kind, rank in RANK.items())
    columns, column_params = _record_rows(records).query.sql_with_params()
    subquery, params = records.order_by().values("pk").query.sql_with_params()
    # The aggregates keep the order of the sorted subquery (GroupAggregate over the
    # sort); one ORDER BY per aggregate would sort every workload's rows again.
    # date_part gives float8 microseconds ÷ 10⁶, the value datetime.timestamp() gives
    # (EXTRACT goes through numeric first, for the same float).
    sql = f"""
        SELECT r.*, s.kinds, s.ats, s.reasons, s.details
        FROM ({columns}) r LEFT JOIN (
            SELECT workload_id, string_agg(type, ' ') AS kinds, array_agg(at) AS ats,
                   array_agg(reason) FILTER (WHERE type IN ({_REASON_READ})) AS reasons,
                   array_agg(detail) FILTER (WHERE type IN ({_DETAIL_READ})) AS details
            FROM (
                SELECT t.workload_id, t.type, date_part('epoch', t.at) AS at,
                       CASE WHEN t.type IN ({_REASON_READ}) THEN t.reason END AS reason,
                       CASE t.type WHEN '{_PREEMPTED}' THEN t.detail->>'preemptor_uid'
                                   WHEN '{_RESERVED}' THEN t.detail::text END AS detail
                FROM reports_workloadtransition t
                WHERE t.workload_id IN ({subquery}) AND t.at < %s
                ORDER BY t.workload_id, t.at, CASE t.type {ranks} ELSE 99 END
            ) steps
            GROUP BY workload_id
        ) s ON s.workload_id = r.pk
        ORDER BY r.pk"""
    parsed: dict[str, dict] = {}  # most details repeat ({"flavors": {"h100": 1}}): parse once
    # In a transaction the named cursor is not WITH HOLD (Django holds it in autocommit,
    # and PostgreSQL then computes every row before the first FETCH), so the server
    # works out each chunk while this thread replays the one before (``chunks_ahead``).
    with transaction.atomic(), connection.chunked_cursor() as cursor:
        cursor.cursor.execute(sql, [*column_params, *params, end], binary=True)
        # closing: a fetch still running ends before the cursor closes, however this stops
        with closing(chunks_ahead(partial(cursor.cursor.fetchmany, CHUNK))) as chunks:
            for rows in chunks:
                yield from _histories_of(rows, parsed)


def _histories_of(rows, parsed: dict[str, dict]):
    """(workload, its info, its steps in replay order) of each of ``_histories_sql``'s rows."""
    for pk, *columns, kinds, ats, reasons, details in rows:
        if kinds is None:
            yield pk, _info(*columns), ()
            continue
        steps = _zip_steps(kinds.split(" "), ats, reasons, details, parsed)
        if ats != sorted(ats):  # the server's aggregation reordered them
            steps = sorted(steps, key=lambda s: (s[1], RANK.get(s[0], 99)))
        yield pk, _info(*columns), steps


def _zip_steps(kinds, ats, reasons, details, parsed) -> Iterator[tuple]:
    """(type, at, reason, detail) per step, handing each reason and detail sent to the
    step it belongs to (the server sent them in step order, for those types only)."""
    reason_of = _placed(kinds, _REASON_KINDS, reasons, "")
    if details:
        sent = iter(details)
        detail_of = [_detail(kind, next(sent), parsed) if kind in _DETAIL_KINDS else None
                     for kind in kinds]  # fmt: skip
    else:
        detail_of = repeat(None, len(kinds))
    return zip(kinds, ats, reason_of, detail_of, strict=True)


def _detail(kind: str, sent: str | None, parsed: dict[str, dict]) -> dict | None:
    """The detail the replay reads: a reservation's parsed JSON, a preemption's preemptor."""
    if kind == _PREEMPTED:
        return {} if sent is None else {"preemptor_uid": sent}
    return _parse(sent, parsed) if sent else None


def _placed(kinds: list[str], wanted: frozenset[str], values, blank):
    """``values`` at the positions of the ``wanted`` kinds, in order; ``blank`` elsewhere."""
    if not values:
        return repeat(blank, len(kinds))
    sent = iter(values)
    return [next(sent) if kind in wanted else blank for kind in kinds]


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
