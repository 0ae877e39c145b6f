"""A week of a 1,000-GPU cluster (~50k workloads) replayed twice: current and proposed policy.

12 teams in 3 cohorts share 600 H100 and 400 A100 GPUs; each team submits
short 1-2 GPU jobs, checkpointed 1-4 GPU fine-tunes and 8-GPU runs at three
priorities, busier in working hours (~70 % of capacity over the week). The
proposal doubles team t0's quota. The two replays run in parallel processes, as
two Celery workers would. Prints wall time, per-replay time and t0's waits.

Run: ``.venv/bin/python bench/whatif_week.py [--serial] [--grid-seconds 30]``.
"""

from __future__ import annotations

import argparse
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
from apps.whatif.replay.engine import replay  # noqa: E402
from apps.whatif.replay.metrics import team_metrics  # noqa: E402
from apps.whatif.replay.synthetic import Load, synthetic_trace  # noqa: E402
from apps.whatif.replay.trace import Window  # noqa: E402

START_MS = 1_767_225_600_000
DAYS = 7
TEAMS = 12
COHORTS = 3
PREEMPTION = {
    "reclaim_within_cohort": "LowerPriority",
    "within_cluster_queue": "LowerPriority",
    "borrow_within_cohort": "Never",
    "borrow_max_priority_threshold": None,
}


def _queue(i: int, scale: int = 1) -> dict:
    quotas = [("h100", 600 // TEAMS * scale), ("a100", 400 // TEAMS * scale)]
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


def policy(doubled: bool) -> list[dict]:
    state = kueue.PolicyState(
        flavors=[{"name": f, "node_labels": {"gpu": f}} for f in ("h100", "a100")],
        cohorts=[{"name": f"pool{c}", "parent": None, "fair_weight": "1"} for c in range(COHORTS)],
        tiers=[],
        teams=[kueue.TeamSpec(f"t{i}", "", (f"ns-t{i}",)) for i in range(TEAMS)],
        queues=[_queue(i, 2 if doubled and i == 0 else 1) for i in range(TEAMS)],
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


def one_replay(args: tuple[bool, int]) -> tuple[float, dict]:
    doubled, grid_ms = args
    workloads = trace()
    started = time.perf_counter()
    result = replay(
        policy(doubled), workloads, Window(START_MS, START_MS + DAYS * 86_400_000), grid_ms=grid_ms
    )
    seconds = time.perf_counter() - started
    metrics = team_metrics(workloads, result, entitled={}, capacity_gpus=1000)
    return seconds, metrics["t0"].as_dict()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--serial", action="store_true", help="one process, one replay after the other"
    )
    parser.add_argument("--grid-seconds", type=int, default=30)
    args = parser.parse_args()
    workloads = trace()
    demand = sum(w.gpus * w.work_ms for w in workloads) / 3.6e6
    print(
        f"{len(workloads)} workloads, {demand:,.0f} GPU-hours of demand, capacity {1000 * 24 * DAYS:,} GPU-hours"
    )
    jobs = [(False, args.grid_seconds * 1000), (True, args.grid_seconds * 1000)]
    started = time.perf_counter()
    if args.serial:
        results = [one_replay(job) for job in jobs]
    else:
        with ProcessPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(one_replay, jobs))
    wall = time.perf_counter() - started
    for label, (seconds, t0) in zip(("current", "t0 doubled"), results, strict=True):
        print(
            f"{label:>11}: replay {seconds:5.1f} s · t0 p50 {t0['p50_wait_s']:.0f} s, "
            f"p95 {t0['p95_wait_s']:.0f} s, preemptions {t0['preemptions']}"
        )
    print(f"wall time for both replays: {wall:.1f} s (target <= 10 s)")


if __name__ == "__main__":
    main()
