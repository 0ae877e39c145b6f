"""Benchmark: a week of the demo cluster generated in virtual time through the live server path.

Every submission goes through the API verbs (validation, managedFields, watch
history), the live controller steps the admission engine instant by instant
and writes Workload status, Events, pods and Jobs back, exactly as
``python -m simcluster serve --seed-history 7`` does before it starts serving.

    .venv/bin/python bench/sim_live.py [--days 7] [--seed 1]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simcluster.controller import attach  # noqa: E402
from simcluster.controller.metrics_history import export  # noqa: E402
from simcluster.demo import DAY_MS, seed_history  # noqa: E402
from simcluster.server import SimServer  # noqa: E402

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
KUEUE = ("kueue.x-k8s.io", "workloads")


def finished(obj: dict) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or ()
    return any(c["type"] == "Finished" and c["status"] == "True" for c in conditions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    server = SimServer()
    controller = attach(server, "virtual", start_ms=START_MS, run=False)
    began = time.perf_counter()
    submitted = seed_history(controller, args.days, seed=args.seed)
    wall = time.perf_counter() - began
    store = server.cluster.store
    workloads = store.list(KUEUE)
    preempted = sum(
        1 for w in workloads if "Preempted" in str(w.get("status", {}).get("conditions"))
    )
    print(
        f"days: {args.days:g}, workloads: {len(workloads)} (submitted {submitted}), finished: {sum(map(finished, workloads))}, ever preempted: {preempted}"
    )
    print(
        f"wall time: {wall:.1f}s, {len(workloads) / wall:.0f} workloads/s, {args.days * 86400 / wall:,.0f}x real time"
    )
    print(
        f"controller writes: {controller.writer.writes}, pods: {store.count(('', 'pods'))}, events: {store.count(('', 'events'))}"
    )
    began = time.perf_counter()
    samples = export(
        controller, START_MS, START_MS + int(args.days * DAY_MS), 60_000, io.StringIO()
    )
    print(f"metrics history (60 s step): {samples:,} samples in {time.perf_counter() - began:.1f}s")


if __name__ == "__main__":
    main()
