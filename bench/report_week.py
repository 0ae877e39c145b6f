"""Weekly report at scale: 1,000,000 admission events (≈200,000 workloads) in one ISO week.

Measures: (1) building the week's report from the history table (load + compute +
store, Prometheus/OpenCost unset so their panels are marked as gaps) beside its
floor, one PostgreSQL scan of the week's transitions (``_floor``), alternating
floor, build, floor, build … in one run — median and best of each, their ratio,
the build's CPU time in this process, the load average, and peak RSS of this process; (2) the stored report page, p95
of 40 requests; (3) the 52-week trend page with 52 stored snapshots; (4) the usage
range views (``/api/v1/usage/`` and ``/reports/usage/``) over the last 24 h, 7 d and
30 d of the week, p95 of 20 requests each, after rebuilding their rollup from the
COPYed history (timed too: the recorder keeps it as it records, COPY bypasses it).

Uses (and recreates, unless ``--keep``) a scratch PostgreSQL database. History rows
are written with COPY (recording 1M events through the watch path would benchmark
the recorder): ``.venv/bin/python bench/report_week.py [--workloads 200000]
[--runs 3] [--keep] [--dump report.json] [--profile]``. ``--dump`` writes the
stored report as canonical JSON, to compare a change's output with the code before
it; ``--profile`` prints where one build's time goes.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ADMIN_DB = "postgres://postgres@127.0.0.1:5432/postgres"
BENCH_DB = os.environ.get("QM_BENCH_DB", "qm_bench_reports")
WEEK = "2026-W47"
MONDAY = datetime(2026, 11, 16, tzinfo=UTC)
TEAMS = [f"team{i:02d}" for i in range(8)]
FLAVORS = ("h100", "a100")


def _recreate_database(keep: bool) -> tuple[str, bool]:
    """The scratch database's URL, and whether it must be filled."""
    import psycopg

    with psycopg.connect(ADMIN_DB, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [BENCH_DB]).fetchone()
        if not (keep and exists):
            conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {BENCH_DB}")
    return f"postgres://postgres@127.0.0.1:5432/{BENCH_DB}", not (keep and exists)


def _setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    os.environ["PROMETHEUS_URL"] = os.environ["OPENCOST_URL"] = ""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _catalog() -> None:
    from apps.accounts.models import User
    from apps.queues import services

    admin = User.objects.create(username="root", is_platform_admin=True)
    for flavor in FLAVORS:
        services.save_flavor(name=flavor, capacity={"nvidia.com/gpu": "512"}, actor=admin)
    from testkit.factories import make_queue, make_team, quota

    for slug in TEAMS:
        team = make_team(admin, slug)
        make_queue(admin, team, quotas=[quota("h100", "32"), quota("a100", "32")])
        make_queue(admin, team, name=f"{slug}-batch", quotas=[quota("h100", "16")])


def _ts(seconds: float) -> str:
    return (MONDAY + timedelta(seconds=seconds)).isoformat()


def _life(rng: random.Random, pk: int):
    """Transition rows of one workload: 4 plain, or 9 with a preemption."""
    t = rng.uniform(-3600, 7 * 86400 - 7200)
    wait, run = rng.expovariate(1 / 900), rng.uniform(600, 6 * 3600)
    flavor = rng.choice(FLAVORS)
    fl = json.dumps({"flavors": {flavor: 1}})
    rows = [(pk, "created", t, "", "{}"), (pk, "quota_reserved", t + wait, "QuotaReserved", fl),
            (pk, "admitted", t + wait, "Admitted", "{}")]  # fmt: skip
    t += wait
    if rng.random() < 0.2:
        evict = t + run / 2
        by = json.dumps({"preemptor_uid": f"uid-{max(1, pk - 1)}"})
        rows += [(pk, "checkpoint", t + run / 4, "", "{}"), (pk, "preempted", evict, "InCohortReclamation", by),
                 (pk, "evicted", evict, "Preempted", "{}"), (pk, "requeued", evict, "Preempted", "{}")]  # fmt: skip
        t = evict + rng.expovariate(1 / 600)
        rows += [(pk, "admitted", t, "Admitted", "{}")]
    rows.append((pk, "finished", t + run, "Succeeded", "{}"))
    return flavor, rows


def _load_history(workloads: int) -> int:
    from django.db import connection

    rng = random.Random(7)
    records, transitions = io.StringIO(), io.StringIO()
    count = 0
    for pk in range(1, workloads + 1):
        flavor, rows = _life(rng, pk)
        team = TEAMS[pk % len(TEAMS)]
        queue = team if pk % 3 else f"{team}-batch"
        gpus = rng.choice((1, 1, 1, 2, 4, 8, 16))
        size = "1" if gpus == 1 else "2-4" if gpus <= 4 else "8" if gpus <= 8 else "multi-node"
        created, finished = rows[0][2], rows[-1][2]
        records.write("\t".join(map(str, (
            pk, f"uid-{pk}", f"team-{team}", f"job-{pk}", "Job", f"job-{pk}", team, queue, queue,
            0, "p2", 1, gpus, json.dumps({flavor: gpus}), size, _ts(created), _ts(rows[2][2]),
            _ts(finished), "succeeded"))) + "\n")  # fmt: skip
        for wid, kind, at, reason, detail in rows:
            transitions.write(f"{wid}\t{kind}\t{_ts(at)}\t{reason}\t\t{detail}\tf\n")
        count += len(rows)
    cols_r = ("id, uid, namespace, name, owner_kind, owner_name, team_slug, local_queue, cluster_queue, "
              "priority, priority_class, pod_count, gpus, gpus_by_flavor, size_class, created_at, "
              "first_admitted_at, finished_at, outcome")  # fmt: skip
    with connection.cursor() as cursor:
        raw = cursor.cursor
        with raw.copy(f"COPY reports_workloadrecord ({cols_r}) FROM STDIN") as copy:
            copy.write(records.getvalue())
        with raw.copy(
            "COPY reports_workloadtransition (workload_id, type, at, reason, message, detail, rebuilt)"
            " FROM STDIN"
        ) as copy:
            copy.write(transitions.getvalue())
        cursor.execute("ANALYZE reports_workloadrecord; ANALYZE reports_workloadtransition")
    return count


def _timed_build() -> float:
    from apps.reports import services

    before = time.perf_counter()
    services.build_weekly_report(WEEK, now=MONDAY + timedelta(days=8))
    return time.perf_counter() - before


def _floor() -> tuple[float, int]:
    """The floor: one PostgreSQL scan of the week's transitions — every row with ``at``
    inside the week, with the columns the report reads, fetched completely to this
    process through Django's connection (psycopg 3, text protocol, the loaders Django
    registers: aware datetimes, JSON left as text)."""
    from django.db import connection

    start, end = MONDAY, MONDAY + timedelta(days=7)
    sql = (
        "SELECT workload_id, type, at, reason, detail FROM reports_workloadtransition"
        " WHERE at >= %s AND at < %s"
    )
    before = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(sql, [start, end])
        count = len(cursor.fetchall())
    return time.perf_counter() - before, count


def _floor_and_build(runs: int) -> None:
    """Alternate floor, COPY and build so all three see the same machine load."""
    floors, copies, builds, cpu, rows = [], [], [], [], 0
    for _ in range(runs):
        seconds, rows = _floor()
        floors.append(seconds)
        copies.append(_copy_floor())
        before = time.process_time()
        builds.append(_timed_build())
        cpu.append(time.process_time() - before)
    print(f"load average after: {os.getloadavg()}")
    print(f"floor (SELECT of the week's {rows:,} transitions): " + _spread(floors))
    print("COPY of the same rows (not decoded): " + _spread(copies))
    print(f"build report {WEEK}: " + _spread(builds))
    # This process's CPU (both threads), which the machine's load does not inflate
    # as much as wall time; PostgreSQL's share is not in it.
    print("build CPU of this process: " + _spread(cpu))
    for name, reference in (("floor", floors), ("COPY", copies)):
        median = statistics.median(builds) / statistics.median(reference)
        pairs = ", ".join(f"{b / r:.2f}" for b, r in zip(builds, reference, strict=True))
        best = min(builds) / min(reference)
        print(f"ratio build/{name}: of medians {median:.2f}, of bests {best:.2f}, per pair {pairs}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss:.0f} MB")


def _spread(samples: list[float]) -> str:
    runs = ", ".join(f"{s:.2f}" for s in samples)
    return f"median {statistics.median(samples):.2f} s, best {min(samples):.2f} s ({runs})"


def _copy_floor() -> float:
    """A tighter reference: the same rows and columns through ``COPY … TO STDOUT``,
    received as text and not decoded."""
    from django.db import connection

    start, end = MONDAY, MONDAY + timedelta(days=7)
    sql = (
        "COPY (SELECT workload_id, type, at, reason, detail FROM reports_workloadtransition"
        f" WHERE at >= '{start.isoformat()}' AND at < '{end.isoformat()}') TO STDOUT"
    )
    before = time.perf_counter()
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for _ in copy:
            pass
    return time.perf_counter() - before


def _phases() -> None:
    """Wall time of each phase of one build, run one after the other (no profiler)."""
    from apps.reports import loading
    from apps.reports.compute import cost, fairness, preemption, utilisation, waits
    from apps.reports.compute.weeks import week_bounds
    from apps.reports.models import WorkloadRecord
    from apps.reports.services.snapshots import _collector_paused

    start, end = week_bounds(WEEK)
    records = WorkloadRecord.objects.overlapping(start, end)
    later = MONDAY + timedelta(days=8)
    state: dict = {}
    phases = (
        ("records + transitions: query + decode",
         lambda: state.update(histories=[(info, list(s)) for _, info, s
                                         in loading._histories_sql(records, end)])),
        ("load_week (all of it)", lambda: state.update(data=loading.load_week(WEEK, now=later))),
        ("replay", lambda: [loading.replay(info, s) for info, s in state["histories"]]),
        ("borrowing/lending sweep", lambda: state.update(queues=fairness.queue_rows(state["data"]))),
        ("fairness teams", lambda: fairness.team_rows(state["data"], state["queues"])),
        ("wait sections", lambda: waits.sections(state["data"])),
        ("utilisation", lambda: state.update(usage=utilisation.team_rows(state["data"]))),
        ("cost", lambda: cost.team_rows(state["data"], state["usage"])),
        ("preemption", lambda: preemption.loss_rows(state["data"])),
    )  # fmt: skip
    with _collector_paused():
        for name, phase in phases:
            before = time.perf_counter()
            phase()
            print(f"  {name:<38} {time.perf_counter() - before:6.2f} s")
    print(f"  COPY of the same rows                 {_copy_floor():6.2f} s")


def _profile() -> None:
    import cProfile
    import pstats

    _phases()
    profiler = cProfile.Profile()
    profiler.runcall(_timed_build)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def _dump(path: str) -> None:
    from apps.reports.models import WeeklyReport

    report = WeeklyReport.objects.get(week=WEEK)
    body = {"data": report.data, "totals": report.totals}
    Path(path).write_text(json.dumps(body, sort_keys=True, indent=1))
    print(f"report written to {path}")


def _page_p95(path: str, n: int) -> float:
    from django.test import Client

    from apps.accounts.models import User

    client = Client()
    client.force_login(User.objects.get(username="root"))
    client.get(path)  # warm
    samples = []
    for _ in range(n):
        before = time.perf_counter()
        assert client.get(path).status_code == 200
        samples.append((time.perf_counter() - before) * 1000)
    return statistics.quantiles(samples, n=100, method="inclusive")[94]


def _store_52_weeks() -> None:
    from apps.reports.compute.weeks import previous_weeks
    from apps.reports.models import WeeklyReport

    latest = WeeklyReport.objects.get(week=WEEK)
    for week in previous_weeks(WEEK, 52)[:-1]:
        WeeklyReport.objects.update_or_create(
            week=week, defaults={"data": latest.data, "totals": latest.totals}
        )


def _rebuild_rollup() -> None:
    from apps.reports import services

    before = time.perf_counter()
    rows = services.rebuild_level_rollup()
    print(f"level rollup rebuilt from all history: {rows:,} team-minutes in "
          f"{time.perf_counter() - before:.1f} s")  # fmt: skip


def _range_views_p95() -> None:
    """The usage views over ranges ending at the week's end (the only history there is)."""
    end = MONDAY + timedelta(days=7)
    for name, span in (("24 h", timedelta(hours=24)), ("7 d", timedelta(days=7)),
                       ("30 d", timedelta(days=30))):  # fmt: skip
        query = f"from={(end - span):%Y-%m-%dT%H:%MZ}&to={end:%Y-%m-%dT%H:%MZ}"
        api = _page_p95(f"/api/v1/usage/?{query}", 20)
        page = _page_p95(f"/reports/usage/?{query}", 20)
        print(f"usage range {name}: API p95 {api:.1f} ms, page p95 {page:.1f} ms, "
              f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workloads", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3, help="floor/build pairs")
    parser.add_argument("--keep", action="store_true", help="reuse a filled database")
    parser.add_argument("--dump", help="write the stored report's JSON here")
    parser.add_argument("--profile", action="store_true", help="cProfile one build")
    parser.add_argument("--ranges-only", action="store_true", help="only the usage range views")
    args = parser.parse_args()
    url, fill = _recreate_database(args.keep)
    _setup_django(url)
    if fill:
        _catalog()
        started = time.perf_counter()
        events = _load_history(args.workloads)
        elapsed = time.perf_counter() - started
        print(f"loaded {events:,} transitions of {args.workloads:,} workloads in {elapsed:.1f} s")
    if fill or args.ranges_only:
        _rebuild_rollup()
    if args.ranges_only:
        _range_views_p95()
        return 0
    if args.profile:
        _profile()
        return 0
    print(f"load average: {os.getloadavg()}")
    _floor_and_build(args.runs)
    if args.dump:
        _dump(args.dump)
    print(f"stored report page p95: {_page_p95(f'/reports/{WEEK}/', 40):.1f} ms")
    _store_52_weeks()
    print(f"52-week trend page p95: {_page_p95('/reports/trend/', 20):.1f} ms")
    _range_views_p95()
    return 0


if __name__ == "__main__":
    sys.exit(main())
