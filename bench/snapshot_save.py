"""The simulated cluster's snapshot save: how long ``snapshot.save`` takes for a store of
N Workload-sized objects, beside what the same objects cost to deep-copy (what a save did
before it encoded under the store's lock) and the file's size.

``.venv/bin/python bench/snapshot_save.py [--objects 30000] [--runs 3]``
Writes only into a temporary folder. Figures: docs/benchmarks.md#snapshot-save.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORKLOADS = ("kueue.x-k8s.io", "workloads")


def workload(index: int) -> dict:
    """About 1.5 kB of JSON, shaped like a finished Workload of the demo week."""
    conditions = [
        {"type": kind, "status": "True", "reason": kind, "message": "m" * 80,
         "lastTransitionTime": "2026-12-01T00:00:00Z"}
        for kind in ("QuotaReserved", "Admitted", "Finished")
    ]  # fmt: skip
    pod = {"containers": [{"name": "main", "image": "trainer:1", "resources": {
        "requests": {"nvidia.com/gpu": "8", "cpu": "32", "memory": "256Gi"}}}]}  # fmt: skip
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"namespace": "team-vision", "name": f"job-{index}",
                     "labels": {"team": "vision"}, "annotations": {"note": "x" * 40}},
        "spec": {"queueName": "vision", "priority": 100,
                 "podSets": [{"name": "main", "count": 2, "template": {"spec": pod}}]},
        "status": {"conditions": conditions, "admission": {"clusterQueue": "vision",
                   "podSetAssignments": [{"name": "main", "count": 2,
                                          "flavors": {"nvidia.com/gpu": "h100"}}]}},
    }  # fmt: skip


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--objects", type=int, default=30_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from simcluster.server import snapshot  # after ROOT is on the path
    from simcluster.server.store import Store

    store = Store()
    for index in range(args.objects):
        store.put(WORKLOADS, workload(index))
    objects = [store.get(WORKLOADS, ("team-vision", f"job-{i}")) for i in range(args.objects)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "state.json"
        saves = [timed(lambda: snapshot.save(store, path)) for _ in range(args.runs)]
        copies = [timed(lambda: copy.deepcopy(objects)) for _ in range(args.runs)]
        size = path.stat().st_size
    print(json.dumps({
        "objects": args.objects, "save_median_s": round(statistics.median(saves), 2),
        "deepcopy_median_s": round(statistics.median(copies), 2),
        "file_mb": round(size / 1e6, 1), "load": os.getloadavg()[0],
    }))  # fmt: skip


if __name__ == "__main__":
    main()
