"""Weekly report at scale: 1,000,000 admission events (≈200,000 workloads) in one ISO week.

Measures: (1) building the week's report from the history table (load + compute +
store, Prometheus/OpenCost unset so their panels are marked as gaps) — wall time
and peak RSS of this process; (2) the stored report page, p95 of 40 requests;
(3) the 52-week trend page with 52 stored snapshots.

Uses (and recreates) a scratch PostgreSQL database. History rows are written with
COPY (recording 1M events through the watch path would benchmark the recorder):
``.venv/bin/python bench/report_week.py [--workloads 200000]``.
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
BENCH_DB = "qm_bench_reports"
WEEK = "2026-W47"
MONDAY = datetime(2026, 11, 16, tzinfo=UTC)
TEAMS = [f"team{i:02d}" for i in range(8)]
FLAVORS = ("h100", "a100")


def _recreate_database() -> str:
    import psycopg

    with psycopg.connect(ADMIN_DB, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")
    return f"postgres://postgres@127.0.0.1:5432/{BENCH_DB}"


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
    from apps.queues.tests.factories import make_queue, make_team, quota

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
            transitions.write(f"{wid}\t{kind}\t{_ts(at)}\t{reason}\t\t{detail}\n")
        count += len(rows)
    cols_r = ("id, uid, namespace, name, owner_kind, owner_name, team_slug, local_queue, cluster_queue, "
              "priority, priority_class, pod_count, gpus, gpus_by_flavor, size_class, created_at, "
              "first_admitted_at, finished_at, outcome")  # fmt: skip
    with connection.cursor() as cursor:
        raw = cursor.cursor
        with raw.copy(f"COPY reports_workloadrecord ({cols_r}) FROM STDIN") as copy:
            copy.write(records.getvalue())
        with raw.copy(
            "COPY reports_workloadtransition (workload_id, type, at, reason, message, detail) FROM STDIN"
        ) as copy:
            copy.write(transitions.getvalue())
        cursor.execute("ANALYZE reports_workloadrecord; ANALYZE reports_workloadtransition")
    return count


def _timed_build() -> tuple[float, float]:
    from apps.reports import services

    before = time.perf_counter()
    services.build_weekly_report(WEEK, now=MONDAY + timedelta(days=8))
    return time.perf_counter() - before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workloads", type=int, default=200_000)
    args = parser.parse_args()
    _setup_django(_recreate_database())
    _catalog()
    started = time.perf_counter()
    events = _load_history(args.workloads)
    print(
        f"loaded {events:,} transitions of {args.workloads:,} workloads in {time.perf_counter() - started:.1f} s"
    )
    seconds, rss = _timed_build()
    print(f"build report {WEEK}: {seconds:.2f} s, peak RSS {rss:.0f} MB")
    print(f"stored report page p95: {_page_p95(f'/reports/{WEEK}/', 40):.1f} ms")
    _store_52_weeks()
    print(f"52-week trend page p95: {_page_p95('/reports/trend/', 20):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
