"""What-if fidelity on a history the real Kueue produced: a compressed demo week.

A real control plane (``realcluster``: kube-apiserver, controllers, scheduler, KWOK
nodes and pods, the real Kueue; fair sharing off, unlike ``make run``) gets the portal's
own rendering of the demo policy (``apps.queues.kueue.render_all``) and the demo's
GPU nodes. The demo week's arrival trace (``simcluster.demo.generate_week``) is
compressed ``--compress`` times (arrivals and run times alike; notebooks become Jobs
of the same size, since KWOK keeps StatefulSet pods running) and each Job is created
at its scaled arrival, in real time; KWOK completes a pod after its scaled run time.

The Workload watch stream (the differential harness's ``WorkloadWatch``) is recorded
with the reports app's recorder code and replayed by the what-if's own path under the
unchanged policy, as ``bench/whatif_fidelity.py`` does for the simulated cluster.

    .venv/bin/python bench/whatif_fidelity_real.py [--days 2] [--seed 1] [--compress 120]
    .venv/bin/python bench/whatif_fidelity_real.py --stored   # replay the last recording only

Heavy: one real control plane (~800 MB, much CPU) for the run, stopped at the end.
Uses (and recreates) the scratch PostgreSQL database ``qm_bench_whatif_fidelity_real``.
"""

from __future__ import annotations

import argparse
import copy
import faulthandler
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import whatif_fidelity as fidelity  # noqa: E402

BENCH_DB = "qm_bench_whatif_fidelity_real"
TEAM_NAMESPACES = ("team-inference", "team-nlp", "team-speech", "team-vision")
SIM_DURATION = "simcluster/duration"


def scaled_jobs(days: float, seed: int, compress: float) -> list[tuple[float, dict]]:
    """The demo week's arrivals as (seconds after start, Job), ``compress`` times faster."""
    from bench.differential.scenarios import DURATION_ANNOTATION, FAST_POD_ANNOTATIONS
    from kueuemodel import parse_duration
    from simcluster.demo import IDLE_NOTEBOOK, generate_week

    out = []
    for at_ms, obj in generate_week(days=days, seed=seed, start_ms=0):
        if obj["metadata"]["name"] == IDLE_NOTEBOOK:
            continue  # the portal's interactive pool, not a team queue
        job = _as_job(obj)
        seconds = max(
            2, round(parse_duration(obj["metadata"]["annotations"][SIM_DURATION]) / 1000 / compress)
        )
        pod_meta = job["spec"]["template"].setdefault("metadata", {})
        pod_meta["annotations"] = {DURATION_ANNOTATION: f"{seconds}s", **FAST_POD_ANNOTATIONS}
        out.append((at_ms / 1000 / compress, job))
    return out


def _as_job(obj: dict) -> dict:
    """A demo Job as is; a notebook StatefulSet as a Job asking the same GPUs."""
    obj = copy.deepcopy(obj)
    obj["metadata"]["annotations"].pop(SIM_DURATION)
    template = obj["spec"]["template"]
    template["spec"]["terminationGracePeriodSeconds"] = 1
    if obj["kind"] == "Job":
        return obj
    template["spec"]["restartPolicy"] = "Never"
    template["metadata"]["labels"].pop("notebook", None)
    spec = {"parallelism": 1, "completions": 1, "suspend": True, "backoffLimit": 0}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": obj["metadata"],
            "spec": {**spec, "template": template}}  # fmt: skip


class Recording:
    """Every Workload object the watch shows in the team namespaces, as watch events."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []
        self.finished: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, obj: dict, _received: float) -> None:
        conditions = (obj.get("status") or {}).get("conditions") or ()
        with self._lock:
            self.events.append(("MODIFIED", obj))
            if any(c["type"] == "Finished" and c["status"] == "True" for c in conditions):
                self.finished.add(obj["metadata"]["uid"])

    def done(self, jobs: int) -> bool:
        with self._lock:
            return len(self.finished) >= jobs


def _wait_active(plane, queues: int, timeout: float = 120.0) -> None:
    import json

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = plane.kubectl("get", "clusterqueues", "-o", "json")
        items = json.loads(done.stdout or "{}").get("items", []) if done.returncode == 0 else []
        active = [
            cq for cq in items
            if any(c["type"] == "Active" and c["status"] == "True"
                   for c in (cq.get("status") or {}).get("conditions") or ())
        ]  # fmt: skip
        if len(active) == queues:
            return
        time.sleep(1.0)
    raise TimeoutError(f"ClusterQueues not active in {timeout:.0f} s")


def run_week(jobs: list[tuple[float, dict]], drain_cap_s: float) -> tuple[list, float, float]:
    """Run ``jobs`` on a fresh real control plane: (watch events, start, end) epoch seconds."""
    from kubernetes import client

    from apps.queues import kueue
    from apps.queues.reconcile.desired import load_state
    from bench.differential.run_real import untaint_nodes
    from bench.differential.watch import WorkloadWatch, api_client
    from realcluster.controlplane import ControlPlane
    from realcluster.nodes import as_kwok_node
    from simcluster.demo import demo_objects, nodes_for

    workdir = Path(tempfile.mkdtemp(prefix="whatif-real-"))
    plane = ControlPlane(workdir).up()
    print(f"control plane up in {plane.startup_seconds:.0f} s", flush=True)
    try:
        plane.apply([as_kwok_node(n) for n in nodes_for(demo_objects())])
        untaint_nodes(plane, "gpu.nvidia.com/class")
        policy = kueue.render_all(load_state())  # what the reconciler would write
        plane.apply(policy)
        _wait_active(plane, sum(1 for o in policy if o["kind"] == "ClusterQueue"))
        recording, watch = Recording(), WorkloadWatch(plane.kubeconfig).start()
        for namespace in TEAM_NAMESPACES:
            watch.subscribe(namespace, recording)
        api = api_client(plane.kubeconfig)
        batch = client.BatchV1Api(api)
        start = int(time.time()) + 1.05  # creationTimestamps are whole seconds
        for offset, job in jobs:
            time.sleep(max(0.0, start + offset - time.time()))
            batch.create_namespaced_job(job["metadata"]["namespace"], job)
        print(f"{len(jobs)} jobs created; load average {os.getloadavg()[0]:.2f}", flush=True)
        deadline = time.time() + drain_cap_s
        while not recording.done(len(jobs)) and time.time() < deadline:
            time.sleep(2.0)
        time.sleep(2.0)  # the last watch events
        end = time.time()
        watch.stop()
        api.close()
        print(f"{len(recording.finished)} of {len(jobs)} finished", flush=True)
        return list(recording.events), start - 1.05, end
    finally:
        plane.down()
        shutil.rmtree(workdir, ignore_errors=True)  # etcd's data and the logs


def replay_stored(grids: list[int], drain_cap_s: float) -> None:
    """Replay the recording kept in the scratch database.

    The window is the run's: from the first event until the last Workload finished or,
    with some still unfinished (censored there), ``drain_cap_s`` after the last arrival.
    """
    from datetime import timedelta

    os.environ.update(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{BENCH_DB}",
        QM_DATA_DIR=tempfile.mkdtemp(),
        QM_CLUSTER_SYNC="false",
        DJANGO_SETTINGS_MODULE="portal.settings",
    )
    import django

    django.setup()  # the stored database as it is: no migration, no demo load
    from django.db.models import Max, Min

    from apps.reports.models import WorkloadRecord, WorkloadTransition

    span = WorkloadTransition.objects.aggregate(first=Min("at"), last=Max("at"))
    start, end = span["first"] - timedelta(seconds=2), span["last"] + timedelta(seconds=3)
    if WorkloadRecord.objects.filter(finished_at__isnull=True).exists():
        last_arrival = WorkloadRecord.objects.aggregate(at=Max("created_at"))["at"]
        end = last_arrival + timedelta(seconds=drain_cap_s + 3)
    for grid_ms in grids:
        label = f"stored real-Kueue history, {grid_ms / 1000:g} s grid"
        fidelity.report(label, *fidelity.measure(start, end, grid_ms))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compress", type=float, default=120, help="week time / real time")
    parser.add_argument(
        "--drain-cap-s", type=float, default=900, help="longest wait after the last arrival"
    )
    parser.add_argument("--grid-ms", type=int, action="append", help="replay grid(s); default 1 s")
    parser.add_argument(
        "--stored", action="store_true", help="replay the history the last run stored; no cluster"
    )
    args = parser.parse_args()
    faulthandler.register(signal.SIGUSR1)
    if args.stored:
        replay_stored(args.grid_ms or [1000], args.drain_cap_s)
        return
    fidelity._setup_django(fidelity._recreate_database(BENCH_DB), tempfile.mkdtemp())
    jobs = scaled_jobs(args.days, args.seed, args.compress)
    print(
        f"{len(jobs)} jobs over {jobs[-1][0]:.0f} s; load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    began = time.perf_counter()
    events, start_s, end_s = run_week(jobs, args.drain_cap_s)
    wall = time.perf_counter() - began
    start = datetime.fromtimestamp(start_s - 1, tz=UTC)
    end = datetime.fromtimestamp(end_s + 1, tz=UTC)
    print(f"real week: {len(events)} watch events in {wall:.0f} s wall; load {os.getloadavg()}")
    fidelity.record(events, end)
    for grid_ms in args.grid_ms or [1000]:
        label = (
            f"real Kueue, {args.days:g} demo days / {args.compress:g}, {grid_ms / 1000:g} s grid"
        )
        fidelity.report(label, *fidelity.measure(start, end, grid_ms))
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
