"""Building and storing a week's report snapshot (the pages only read snapshots)."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from datetime import UTC, datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.queues.models import ResourceFlavor
from apps.reports import attribution, loading, nodeprices, placement
from apps.reports import gaps as gap_rows
from apps.reports.compute import report as assemble
from apps.reports.compute import waits
from apps.reports.compute.records import Price, WeekInput
from apps.reports.gaps import gap
from apps.reports.models import WeeklyReport, WorkloadRecord
from apps.reports.prices import flavor_prices
from apps.reports.services.usage import store_usage
from core import opencost, prometheus


def build_weekly_report(week: str, *, now: datetime | None = None) -> WeeklyReport:
    """Gather usage and prices (marking what is missing), compute, store. Safe to repeat."""
    now = now or timezone.now()
    with _collector_paused():
        data = loading.load_week(week, now=now, half_life_hours=settings.QM_REPORT_HALF_LIFE_HOURS)
        gaps = [gap_rows.downtime(row) for row in waits.downtime_rows(data)]
        fresh_prices = _collect_usage_and_prices(week, data, gaps)
        data.prices = _prices(fresh_prices, data, gaps)
        data.other_costs = _other_costs(data, gaps)
        report = assemble.build(data, gaps)
        _add_prometheus_quantiles(report, data, gaps)
        del data  # freed while the collector is paused: see _collector_paused
    report["gaps"] = gaps
    return _store(week, report, as_of=now)


@contextmanager
def _collector_paused():
    """No cyclic garbage collection while a week is built: the build allocates millions
    of tuples and records that are all alive until it ends (nothing for the collector to
    find), and the full collections those allocations trigger walk the whole growing
    heap again and again — a third of the build's time at 1M transitions. Reference
    counting still frees everything; the collector runs as usual afterwards. The
    week's records are dropped before it resumes: the first collection after it
    resumes walks every object allocated meanwhile that is still alive (0.14 s of CPU
    for 700,000 records; 0.03 s when they are freed first)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _candidates(data: WeekInput) -> list[attribution.Candidate]:
    runs: dict[str, list] = {}
    for r in data.runs:
        runs.setdefault(r.uid, []).append(
            (r.start, data.horizon if r.end is None else r.end, r.flavor)
        )
    rows = WorkloadRecord.objects.filter(uid__in=list(runs)).values_list(
        "uid", "namespace", "owner_name"
    )
    return [
        attribution.Candidate(uid, ns, owner or "", tuple(runs[uid])) for uid, ns, owner in rows
    ]


def _collect_usage_and_prices(week: str, data: WeekInput, gaps: list[dict]) -> dict[str, float]:
    start, end = _range(data)
    try:
        usage = prometheus.range_series(prometheus.usage_queries(), start, end)
        prices = prometheus.range_series(prometheus.price_queries(), start, end)
        owners = prometheus.pod_owners(start, end)
        nodes = prometheus.node_labels(start, end)
        node_prices = prometheus.node_gpu_prices(start, end)
        placed = prometheus.range_labelled(prometheus.placement_queries(), start, end)
    except prometheus.MetricsUnavailable as exc:
        note = "; showing usage stored earlier" if data.usage else ""
        gaps.append(gap("gpu_metrics", f"{exc}{note}"))
        gaps.append(gap("placement", str(exc)))
        return {}
    who = attribution.Attributor(_candidates(data), owners)
    step = float(settings.QM_PROMETHEUS_STEP_SECONDS)
    facts = attribution.usage_by_workload(who, usage, step)
    store_usage(week, facts)
    data.usage = {**data.usage, **facts}
    if not facts and data.runs:
        gaps.append(gap("gpu_metrics", "Prometheus has no DCGM series for this week"))
    flavors = dict(ResourceFlavor.objects.values_list("name", "node_labels"))
    data.placement = placement.build(placed, who, flavors, nodes, step)
    if data.placement is None:
        reason = "no GPU node of any flavor in kube_node_status_allocatable and kube_node_labels"
        gaps.append(gap("placement", reason))
    # Prices of the pods that ran win; the nodes' price covers flavors nothing ran on.
    by_node = nodeprices.flavor_prices(flavors, nodes, node_prices)
    return {**by_node, **attribution.flavor_prices(who, prices, step)}


def _range(data: WeekInput) -> tuple[datetime, datetime]:
    start = datetime.fromtimestamp(data.start, tz=UTC)
    return start, datetime.fromtimestamp(data.horizon - 1, tz=UTC)


def _prices(fresh: dict[str, float], data: WeekInput, gaps: list[dict]) -> dict[str, Price]:
    prices = flavor_prices(fresh)
    used = {r.flavor for r in data.runs} | {q.flavor for q in data.quotas}
    missing = sorted(f for f in used if f and f not in prices)
    if missing:
        reason = f"no OpenCost or table price for {', '.join(missing)}"
        gaps.append(gap("gpu_prices", reason, missing=missing))
    return prices


def _other_costs(data: WeekInput, gaps: list[dict]) -> dict[str, float]:
    start, end = _range(data)
    try:
        by_namespace = opencost.allocation_by_namespace(start, end)
    except opencost.CostUnavailable as exc:
        gaps.append(gap("other_costs", f"non-GPU cost unknown: {exc}"))
        return {}
    teams = dict(WorkloadRecord.objects.values_list("namespace", "team_slug").distinct())
    totals: dict[str, float] = {}
    for namespace, row in by_namespace.items():
        team = teams.get(namespace)
        if team:
            totals[team] = totals.get(team, 0.0) + row["total_cost"] - row["gpu_cost"]
    return totals


def _add_prometheus_quantiles(report: dict, data: WeekInput, gaps: list[dict]) -> None:
    """Next to our exact numbers: what Kueue's own histogram in Prometheus says."""
    start, end = _range(data)
    try:
        answers = prometheus.kueue_wait_quantiles(start, end)
    except prometheus.MetricsUnavailable as exc:
        gaps.append(gap("wait_histogram", f"Kueue histogram not read: {exc}"))
        return
    for row in report["waits"]:
        key = (
            "" if row["dimension"] == "all" else row["key"] if row["dimension"] == "queue" else None
        )
        for p, value in (answers.get(key, {}) if key is not None else {}).items():
            row[f"{p}_prometheus"] = value


@transaction.atomic
def _store(week: str, report: dict, *, as_of: datetime) -> WeeklyReport:
    """Store the snapshot unless one built from later data is there already.

    Race: two builds of a week overlap (a late beat run beside the next, or the command
    beside the schedule); the one that started later read more history, so it wins
    whatever order they finish in. The row lock serialises the compare-and-write.
    """
    values = {"data": report, "totals": assemble.totals(report), "built_at": as_of}
    snapshot, created = WeeklyReport.objects.select_for_update().get_or_create(
        week=week, defaults=values
    )
    if not created and snapshot.built_at <= as_of:
        for field, value in values.items():
            setattr(snapshot, field, value)
        snapshot.save(update_fields=list(values))
    return snapshot
