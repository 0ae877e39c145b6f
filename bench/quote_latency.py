"""Quote latency on a 1,000-GPU simulated cluster: p50 and p95 per verdict.

The simulated cluster (the subprocess the tests use, live controller) gets 125 nodes
of 8 GPUs and a policy of three flavors: h100 512, a100 384 and l40s 104 GPUs. Seven
teams in one cohort have 72 h100, 54 a100 and 14 l40s each; "ops", outside the cohort,
has the remaining 8, 6 and 6. Each of the seven submits ``--jobs-per-team`` jobs of 1,
2, 4 or 8 GPUs (seeded) that run for ten hours, more than the quota holds, so a few
hundred hold quota and the rest wait; each team's template has five recorded runs
(1 to 10 hours), so a ``later`` quote runs the start estimate's two forward runs over
every workload. Then ``--quotes`` quotes of each verdict are timed, through the
product's quote path (``quote_job``, what ``POST /api/v1/quotes/`` calls, without
HTTP): ``now`` (8 h100 GPUs for ops), ``later`` (8 h100 GPUs for a cohort team) and
``never`` (512 h100 GPUs, more than the cohort holds).

    .venv/bin/python bench/quote_latency.py [--jobs-per-team 50] [--quotes 30] [--profile]

Uses (and recreates) the scratch PostgreSQL database ``qm_bench_quote_latency`` (or
``--database``).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.quote_accuracy import setup_django, start_cluster  # noqa: E402

BENCH_DB = "qm_bench_quote_latency"
FLAVORS = {"h100": 512, "a100": 384, "l40s": 104}
TEAM_QUOTA = {"h100": "72", "a100": "54", "l40s": "14"}  # each of seven teams
OPS_QUOTA = {"h100": "8", "a100": "6", "l40s": "6"}
TEAMS = tuple(f"team{i}" for i in range(7))
NODES = 125
TEMPLATE = "pytorch-train"
RUNS_MIN = [60, 120, 240, 480, 600]
ASK = {
    "now": ("ops", {"gpus_per_pod": 8}),
    "later": ("team0", {"gpus_per_pod": 8}),
    "never": ("team0", {"gpus_per_pod": 8, "pods": 64}),
}


def load_policy() -> dict:
    """Flavors, the cohort, eight teams with a scientist each, the template; users by team."""
    from apps.jobs.models import JobTemplate
    from apps.jobs.services.pool import save_setting
    from apps.queues import services
    from core.roles import TeamRole
    from testkit.factories import UserFactory, make_admin, make_flavor, make_queue, make_team
    from testkit.factories import quota as q

    admin = make_admin()
    for name, gpus in FLAVORS.items():
        make_flavor(admin, name, {"nvidia.com/gpu": str(gpus)})
    services.save_cohort(name="research", actor=admin)
    services.save_priority_tier(name="p2-standard", value=100, actor=admin)
    users = {}
    for slug in (*TEAMS, "ops"):
        team = make_team(admin, slug)
        quotas = [q(f, n) for f, n in (OPS_QUOTA if slug == "ops" else TEAM_QUOTA).items()]
        cohort = {} if slug == "ops" else {"cohort": "research"}
        make_queue(admin, team, quotas=quotas, **cohort)
        users[slug] = UserFactory(username=f"sci-{slug}")
        services.add_membership(team=team, user=users[slug], role=TeamRole.SCIENTIST, actor=admin)
    template = JobTemplate(name=TEMPLATE, image="registry.example.com/ml/pytorch:2.4",
                           default_command=["python", "train.py"])  # fmt: skip
    save_setting(template, actor=admin, created=True)
    return users


def fill(cluster, users: dict, jobs_per_team: int, seed: int) -> tuple[int, int]:
    """Nodes, the policy, the recorded runs and the jobs; (holding quota, waiting)."""
    from apps.jobs import cluster_sync
    from apps.jobs.services import JobRequest, Principal, submit_job
    from apps.queues.reconcile.run import reconcile
    from core.kube import KubeClient
    from testkit.nodes import add_node

    for i in range(NODES):
        add_node(cluster, f"gpu-{i}")
    assert reconcile(trigger="manual").errors == []
    rng = random.Random(seed)
    with KubeClient() as client:
        for slug in TEAMS:
            recorded_history(users[slug])
            for _ in range(jobs_per_team):
                spec = JobRequest(template=TEMPLATE, flavor=rng.choice(sorted(FLAVORS)),
                                  gpus_per_pod=rng.choice((1, 2, 4, 8)), max_runtime_minutes=720,
                                  sim_duration_seconds=36_000)  # fmt: skip
                job, _ = submit_job(users[slug], spec, actor=Principal(users[slug]))
                assert cluster_sync.create_job(client, job.pk) == "created"
    return settled(cluster, len(TEAMS) * jobs_per_team)


def recorded_history(user) -> None:
    """Jobs of ``user``'s team that succeeded yesterday after ``RUNS_MIN`` minutes each,
    as the status sync records them: the run times a quote's estimate reads."""
    from datetime import timedelta

    from django.utils import timezone

    from apps.jobs.choices import JobState
    from apps.jobs.models import BatchJob
    from apps.jobs.services import JobRequest, Principal, submit_job

    yesterday = timezone.now() - timedelta(days=1)
    for minutes in RUNS_MIN:
        spec = JobRequest(template=TEMPLATE, flavor="h100", gpus_per_pod=8)
        job, _ = submit_job(user, spec, actor=Principal(user))
        began = yesterday - timedelta(minutes=minutes)
        BatchJob.objects.filter(pk=job.pk).update(
            state=JobState.SUCCEEDED, admitted_at=began, ended_at=yesterday
        )


def settled(cluster, jobs: int) -> tuple[int, int]:
    """(holding quota, waiting) once every Workload exists and the count held stands still."""
    from informer import objects as o

    last, steady = None, 0
    while steady < 3:
        time.sleep(2.0)
        workloads = cluster.list("Workload")
        held = sum(o.is_reserved(w) for w in workloads)
        now = (held, len(workloads) - held) if len(workloads) == jobs else None
        steady = steady + 1 if now and now == last else 0
        last = now
    return last


def time_quotes(users: dict, verdict: str, count: int) -> list[float]:
    """Seconds per quote of the ``verdict`` case; each answer is checked to be that verdict."""
    from apps.jobs.services import JobRequest, Principal
    from apps.jobs.services.quotes import quote_job

    team, ask = ASK[verdict]
    user = users[team]
    spec = JobRequest(template=TEMPLATE, flavor="h100", **ask)
    seconds = []
    for _ in range(count):
        began = time.perf_counter()
        answer = quote_job(user, spec, actor=Principal(user))
        seconds.append(time.perf_counter() - began)
        assert answer.verdict == verdict, answer.summary
    if verdict == "later":
        print(f"  a later quote says: {answer.summary}")
    return seconds


def profile(users: dict, verdict: str) -> None:
    """Where a quote's time goes: the functions with the most cumulative time."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.runcall(time_quotes, users, verdict, 3)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


def main() -> None:
    from core.stats import percentile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs-per-team", type=int, default=50)
    parser.add_argument("--quotes", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="profile 3 quotes of each verdict")
    parser.add_argument("--database", default=BENCH_DB, help="the scratch database (recreated)")
    args = parser.parse_args()
    setup_django(args.database)
    users = load_policy()
    cluster, stop = start_cluster("sim", Path(tempfile.mkdtemp(prefix="quote-latency-")))
    try:
        began = time.perf_counter()
        held, waiting = fill(cluster, users, args.jobs_per_team, args.seed)
        print(f"{NODES * 8} GPUs, {held} workloads holding quota, {waiting} waiting "
              f"(filled in {time.perf_counter() - began:.0f} s)")  # fmt: skip
        for verdict in ASK:
            load = os.getloadavg()[0]
            seconds = time_quotes(users, verdict, args.quotes)
            print(f"{verdict}: {len(seconds)} quotes, p50 {percentile(seconds, 50):.2f} s, "
                  f"p95 {percentile(seconds, 95):.2f} s, slowest {max(seconds):.2f} s; "
                  f"load {load:.2f} -> {os.getloadavg()[0]:.2f}")  # fmt: skip
            if args.profile:
                profile(users, verdict)
    finally:
        stop()


if __name__ == "__main__":
    main()
