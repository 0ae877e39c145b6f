"""A week of a 1,000-GPU cluster (~50k workloads) replayed twice: current and proposed policy.

12 teams in 3 cohorts share 600 H100 and 400 A100 GPUs; each team submits
short 1-2 GPU jobs, checkpointed 1-4 GPU fine-tunes and 8-GPU runs at three
priorities, busier in working hours (~70 % of capacity over the week). The
proposal doubles team t0's quota (``--every-tree``: every team's quota grows by
a GPU, so no tree is left alone).

The replays go the product's way (``apps.whatif.replay.split``): one per cohort
tree and policy, a tree the proposal does not change replayed once, on two
worker processes as two Celery workers would run them, largest first. The
workers start with the week in memory (forked after it is built), as a worker
holds a run's history once it has read it; reading it is timed apart.
``--whole`` replays each policy in one piece instead, for comparison. Prints the
wall time, each replay's time, and t0's waits.

Run: ``.venv/bin/python bench/whatif_week.py [--every-tree] [--whole] [--serial]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

from apps.queues import kueue  # noqa: E402
from apps.whatif.policies import policy_objects  # noqa: E402
from apps.whatif.replay.engine import ReplayResult  # noqa: E402
from apps.whatif.replay.metrics import team_metrics  # noqa: E402
from apps.whatif.replay.partition import group_trace  # noqa: E402
from apps.whatif.replay.split import ReplayPlan, combine, plan_replays, replay_part  # noqa: E402
from apps.whatif.replay.synthetic import Load, synthetic_trace  # noqa: E402
from apps.whatif.replay.trace import Window  # noqa: E402

START_MS = 1_767_225_600_000
DAYS = 7
WINDOW = Window(START_MS, START_MS + DAYS * 86_400_000)
TEAMS = 12
COHORTS = 3
PREEMPTION = {
    "reclaim_within_cohort": "LowerPriority",
    "within_cluster_queue": "LowerPriority",
    "borrow_within_cohort": "Never",
    "borrow_max_priority_threshold": None,
}


def _queue(i: int, scale: int = 1, extra: int = 0) -> dict:
    quotas = [("h100", 600 // TEAMS * scale + extra), ("a100", 400 // TEAMS * scale)]
    return {
        "name": f"t{i}",
        "team": f"t{i}",
        "cohort": f"pool{i % COHORTS}",
        "fair_weight": "1",
        "queueing_strategy": "BestEffortFIFO",
        "stop_policy": "None",
        "preemption": dict(PREEMPTION),
        "quotas": [
            {
                "flavor": f,
                "resource": "nvidia.com/gpu",
                "nominal": str(n),
                "borrowing_limit": None,
                "lending_limit": None,
            }
            for f, n in quotas
        ],
    }


def policy(doubled: bool, every_tree: bool = False) -> list[dict]:
    state = kueue.PolicyState(
        flavors=[{"name": f, "node_labels": {"gpu": f}} for f in ("h100", "a100")],
        cohorts=[{"name": f"pool{c}", "parent": None, "fair_weight": "1"} for c in range(COHORTS)],
        tiers=[],
        teams=[kueue.TeamSpec(f"t{i}", "", (f"ns-t{i}",)) for i in range(TEAMS)],
        queues=[
            _queue(i, 2 if doubled and i == 0 else 1, 1 if doubled and every_tree else 0)
            for i in range(TEAMS)
        ],
    )
    return policy_objects(state, fair_sharing=False)


def trace():
    loads = []
    for i in range(TEAMS):
        team = (f"t{i}", f"t{i}", f"ns-t{i}")
        loads += [
            Load(*team, per_day=4200 / TEAMS, gpus=(1, 1, 2), minutes=(10, 80), priority=10),
            Load(
                *team,
                per_day=2700 / TEAMS,
                gpus=(1, 2, 4),
                minutes=(20, 100),
                priority=100,
                checkpoint_minutes=30,
            ),
            Load(
                *team,
                per_day=250 / TEAMS,
                gpus=(8,),
                minutes=(60, 240),
                priority=500,
                checkpoint_minutes=60,
            ),
        ]
    return synthetic_trace(loads, start_ms=START_MS, days=DAYS, seed=3)


_TRACE: list = []
"""The week, built before the workers are forked: they inherit it."""


def one_part(job: tuple[str, list[dict]]) -> tuple[str, float, dict]:
    """One replay on a worker: a tree (or, with --whole, a whole policy)."""
    key, objects = job
    started = time.perf_counter()
    result = replay_part(objects, _TRACE, WINDOW)
    return key, time.perf_counter() - started, result.as_dict()


def run_jobs(jobs: list[tuple[str, list[dict]]], serial: bool) -> dict[str, tuple[float, dict]]:
    if serial:
        return {key: (seconds, data) for key, seconds, data in map(one_part, jobs)}
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        return {key: (seconds, data) for key, seconds, data in pool.map(one_part, jobs)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--serial", action="store_true", help="one process, one replay after another"
    )
    parser.add_argument("--whole", action="store_true", help="each policy in one piece")
    parser.add_argument("--every-tree", action="store_true", help="the proposal changes every tree")
    args = parser.parse_args()
    built = time.perf_counter()
    workloads = _TRACE[:] = trace()
    built = time.perf_counter() - built
    demand = sum(w.gpus * w.work_ms for w in workloads) / 3.6e6
    print(
        f"{len(workloads)} workloads, {demand:,.0f} GPU-hours of demand, capacity {1000 * 24 * DAYS:,} GPU-hours"
    )
    variants = {"current": policy(False), "proposed": policy(True, every_tree=args.every_tree)}
    if args.whole:
        plan = ReplayPlan([], dict(variants), {v: [v] for v in variants})
    else:
        plan = plan_replays(variants)
    jobs = sorted(plan.parts.items(), key=lambda job: -len(group_trace(job[1], workloads)))
    started = time.perf_counter()
    done = run_jobs(jobs, args.serial)
    wall = time.perf_counter() - started
    results = {key: ReplayResult.from_dict(WINDOW, data) for key, (_, data) in done.items()}
    for key, (seconds, _) in sorted(done.items()):
        print(f"{key:>12}: {seconds:5.1f} s")
    for variant in variants:
        merged = combine(plan, variant, results, WINDOW)
        t0 = team_metrics(workloads, merged, entitled={}, capacity_gpus=1000)["t0"].as_dict()
        print(
            f"{variant:>12}: t0 p50 {t0['p50_wait_s']:.0f} s, p95 {t0['p95_wait_s']:.0f} s, "
            f"preemptions {t0['preemptions']}"
        )
    print(f"(building the week's trace took {built:.1f} s, before the clock starts)")
    print(
        f"{len(jobs)} replays for {len(variants)} policies; wall time {wall:.1f} s (target <= 10 s)"
    )


if __name__ == "__main__":
    main()
