"""Replay Kueue's baseline scheduler-performance scenario in virtual time.

Mirrors kubernetes-sigs/kueue test/performance/scheduler/configs/baseline:
5 cohorts x 6 ClusterQueues (nominal 20, borrowingLimit 100, reclaimWithinCohort
Any, withinClusterQueue LowerPriority); per queue 350 small, 100 medium and 50
large workloads created at fixed intervals. Prints wall time, ClusterQueue
usage and average time to admission per class next to Kueue's published
figures. Run: ``.venv/bin/python bench/kueue_baseline.py [--large-scale] [--latency kueue]``.

``--latency kueue`` replays with the controller delays of Kueue's harness
(``KUEUE_HARNESS`` below, explained in docs/benchmarks.md "Admission engine");
without it the engine has none, as everywhere else.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kueuemodel import (  # noqa: E402
    NEXT_INSTANT_MS,
    Latency,
    Simulation,
    format_timestamp,
    parse_timestamp,
)

START_MS = parse_timestamp("2026-01-01T00:00:00Z")


@dataclass(frozen=True)
class WorkloadClass:
    name: str
    count: int
    interval_ms: int
    runtime_ms: int
    priority: int
    request: int


@dataclass(frozen=True)
class Config:
    cohorts: int
    queues_per_cohort: int
    classes: tuple[WorkloadClass, ...]
    published: dict[str, float]
    target_wall_s: float


BASELINE = Config(
    cohorts=5,
    queues_per_cohort=6,
    classes=(
        WorkloadClass("small", 350, 100, 200, 50, 1),
        WorkloadClass("medium", 100, 500, 500, 100, 5),
        WorkloadClass("large", 50, 1200, 1000, 200, 20),
    ),
    published={"usage": 55.9, "large": 16.5, "medium": 76.8, "small": 215.0},
    target_wall_s=5.0,
)
RANGESPEC = {"usage": 50.0, "large": 23.0, "medium": 90.0, "small": 260.0}
"""The bounds of Kueue's baseline ``rangespec.yaml`` (usage at least, times at most),
recalibrated with SchedulingEquivalenceHashing; the published averages are its comments."""
PUBLISHED_WITHOUT_HASHING = {"usage": 58.7, "large": 6.666, "medium": 76.768, "small": 215.468}
RANGESPEC_WITHOUT_HASHING = {"usage": 55.0, "large": 11.0, "medium": 90.0, "small": 260.0}
"""The same file before hashing (as Kueue v0.17.0 ships it): the April 2024 runs."""
KUEUE_WALL_S = 351.1
"""Kueue's harness: minimalkueue's average wall time on the baseline (rangespec.yaml)."""

LARGE_SCALE = Config(
    cohorts=20,
    queues_per_cohort=100,
    classes=(
        WorkloadClass("small", 20, 20, 50, 50, 1),
        WorkloadClass("medium", 7, 50, 100, 100, 5),
        WorkloadClass("large", 3, 200, 200, 200, 20),
    ),
    published={},
    target_wall_s=60.0,
)


def cluster_objects(config: Config) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = [{"kind": "ResourceFlavor", "metadata": {"name": "rf"}}]
    for cohort in range(config.cohorts):
        for index in range(config.queues_per_cohort):
            name = f"cq-0-{index}-cohort-{cohort}"
            objects.append(_cluster_queue(name, f"cohort-{cohort}"))
            objects.append(
                {
                    "kind": "LocalQueue",
                    "metadata": {"name": name, "namespace": name},
                    "spec": {"clusterQueue": name},
                }
            )
    return objects


def _cluster_queue(name: str, cohort: str) -> dict[str, Any]:
    quota = {"name": "cpu", "nominalQuota": 20, "borrowingLimit": 100}
    return {
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {
            "cohortName": cohort,
            "namespaceSelector": {},
            "resourceGroups": [
                {"coveredResources": ["cpu"], "flavors": [{"name": "rf", "resources": [quota]}]}
            ],
            "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
        },
    }


def arrivals(
    config: Config, create_ms: int = 0, observed: dict[str, int] | None = None
) -> list[tuple[int, dict[str, Any]]]:
    """Each class emits one workload per interval, the first after one interval.

    Kueue's runner creates a set's workloads one after another
    (``generateWlSet``: ``<-time.After(interval)``, then a Create round trip), so
    each creation that takes ``create_ms`` delays every later one of its set:
    workload i exists at (i + 1) x (interval + create_ms). ``observed`` replaces
    that with the arrival (ms after the start) of each "namespace/name" seen in a
    harness run (``kueue_harness_summary``).
    """
    trace = []
    for cohort in range(config.cohorts):
        for index in range(config.queues_per_cohort):
            namespace = f"cq-0-{index}-cohort-{cohort}"
            for set_index, cls in enumerate(config.classes):
                for i in range(cls.count):
                    at = START_MS + (i + 1) * (cls.interval_ms + create_ms)
                    if observed is not None:
                        at = START_MS + observed[f"{namespace}/{workload_name(cls, set_index, i)}"]
                    trace.append((at, _workload(namespace, cls, set_index, i, at)))
    return trace


def spread(
    trace: list[tuple[int, dict[str, Any]]], jitter_ms: int, seed: int
) -> list[tuple[int, dict[str, Any]]]:
    """Delay each arrival by 0..``jitter_ms`` ms (uniform, seeded).

    Kueue's runner creates every workload set's workloads from its own goroutine
    (``generateWlSet`` in test/performance/scheduler/runner/generator/generator.go:
    ``time.After(interval)``, then a Create round trip), so the 30 queues' arrivals
    of one instant reach Kueue spread over some milliseconds, never all at once.
    """
    if not jitter_ms:
        return trace
    rng = random.Random(seed)
    spread_trace = []
    for at, obj in trace:
        at += rng.randint(0, jitter_ms)
        obj["metadata"]["labels"]["arrival-ms"] = str(at)
        spread_trace.append((at, obj))
    return spread_trace


def workload_name(cls: WorkloadClass, set_index: int, i: int) -> str:
    """As Kueue's generator names them: ``<class>-<set>-<i>-0``."""
    return f"{cls.name}-{set_index}-{i}-0"


def _workload(
    namespace: str, cls: WorkloadClass, set_index: int, i: int, at: int
) -> dict[str, Any]:
    container = {"name": "c", "resources": {"requests": {"cpu": str(cls.request)}}}
    return {
        "kind": "Workload",
        "metadata": {
            "name": workload_name(cls, set_index, i),
            "namespace": namespace,
            "creationTimestamp": format_timestamp(at),
            "labels": {"class": cls.name, "arrival-ms": str(at)},
            "annotations": {"simcluster/duration": f"{cls.runtime_ms}ms"},
        },
        "spec": {
            "queueName": namespace,
            "priority": cls.priority,
            "podSets": [
                {"name": "main", "count": 1, "template": {"spec": {"containers": [container]}}}
            ],
        },
    }


# Kueue's performance test runs without pods (minimalkueue and a fake job runner),
# so an evicted workload gives its quota back as soon as the runner sees it: at
# the next instant. (The live simulated cluster lets pods take a second.)
POD_STOP_MS = NEXT_INSTANT_MS

# The delays of Kueue's harness (test/performance/scheduler: minimalkueue against
# envtest, and the runner that plays the jobs). Sources and what is assumed: see
# docs/benchmarks.md, "Admission engine".
KUEUE_HARNESS = Latency(
    cycle_ms=5,  # the scheduler's own work per cycle (assumed; 1-10 ms changes little)
    api_qps=50,  # minimalkueue's client: kubeConfig.QPS = 50 ...
    api_burst=100,  # ... and Burst = 100, one bucket for all its Workload writes
    write_ms=5,  # an envtest API server round trip (assumed; 2-10 ms changes little)
    finish_ms=5,  # the runner marks a job Finished, Kueue's watch sees it (assumed)
)
HARNESS_POD_STOP_MS = 5
"""The runner ends an eviction (unsets the quota reservation) when it sees it (assumed)."""
HARNESS_CREATE_MS = 15
"""The runner's Create round trip, which delays each later workload of its set
(assumed; 10-20 ms put both published baselines within 20 %, docs/benchmarks.md)."""
LATENCIES = {"none": (Latency(), POD_STOP_MS), "kueue": (KUEUE_HARNESS, HARNESS_POD_STOP_MS)}
CREATE_MS = {"none": 0, "kueue": HARNESS_CREATE_MS}
MAX_DELAY_MS = 10_000
"""Bounds of --jitter-ms and --create-ms: beyond an interval of seconds the scenario is
no longer Kueue's baseline."""
MAX_SEEDS = 100


def hashing_by_default(kueue_version: str) -> bool:
    """Whether SchedulingEquivalenceHashing is on by default in ``kueue_version``:
    Beta and off in v0.17, on from v0.18 (pkg/features/kube_features.go)."""
    major, minor = (int(part) for part in kueue_version.lstrip("v").split(".")[:2])
    return (major, minor) >= (0, 18)


def run(
    config: Config,
    latency: Latency | None = None,
    pod_stop_ms: int = POD_STOP_MS,
    *,
    jitter_ms: int = 0,
    seed: int = 1,
    equivalence_hashing: bool = True,
    create_ms: int = 0,
    observed: dict[str, int] | None = None,
) -> dict[str, Any]:
    trace = spread(arrivals(config, create_ms, observed), jitter_ms, seed)
    began = time.perf_counter()
    sim = Simulation(
        cluster_objects(config),
        start_ms=START_MS,
        record_events=False,
        pod_stop_ms=pod_stop_ms,
        latency=latency or Latency(),
        equivalence_hashing=equivalence_hashing,
    )
    sim.cluster.history = []
    sim.add_arrivals(trace)
    sim.run()
    wall = time.perf_counter() - began
    return {"wall_s": wall, "workloads": len(trace), **summarise(sim, config)}


def summarise(sim: Simulation, config: Config) -> dict[str, Any]:
    """Kueue's recorder metrics: usage share of nominal and mean time to admission."""
    waits: dict[str, list[int]] = {}
    large_by_index: dict[int, list[int]] = {}
    evictions = 0
    for wl in sim.cluster.workloads.values():
        cls = wl.obj["metadata"]["labels"]["class"]
        wait = _admitted_seen(sim, wl) - _arrival(wl)
        waits.setdefault(cls, []).append(wait)
        if cls == "large":
            large_by_index.setdefault(arrival_index(wl.name), []).append(wait)
        evictions += wl.evictions
    usage = queue_usage(sim.cluster.history, START_MS, sim.cluster.now_ms)
    return {
        "avg_wait_s": {cls: sum(v) / len(v) / 1000 for cls, v in waits.items()},
        "large_wait_by_index_s": {
            i: sum(v) / len(v) / 1000 for i, v in sorted(large_by_index.items())
        },
        "min_usage_pct": min(usage.values()) * 100 / 20,
        "avg_usage_pct": sum(usage.values()) / len(usage) * 100 / 20,
        "evictions": evictions,
        "virtual_s": (sim.cluster.now_ms - START_MS) / 1000,
    }


def arrival_index(name: str) -> int:
    """The i of a workload named ``<class>-<set>-<i>-0`` (as Kueue's generator names them)."""
    return int(name.split("-")[2])


def _admitted_seen(sim: Simulation, wl) -> int:
    # The published averages come from the runner's recorder before kueue commit
    # 94f89ec95d (Aug 2026): it timed an admission when its informer saw the
    # Admitted update, i.e. when Kueue's rate-limited write landed, not when the
    # scheduler decided. Without latency the two are the same instant.
    return sim.admission_landed_ms.get(wl.key, wl.reserved_ms)


def _arrival(wl) -> int:
    # creationTimestamp has whole seconds (as in Kubernetes, and Kueue orders by
    # it); waits are measured from the exact virtual arrival kept in a label.
    return int(wl.obj["metadata"]["labels"]["arrival-ms"])


def queue_usage(history: list, start_ms: int, end_ms: int) -> dict[str, float]:
    """Time-averaged reserved cpu per ClusterQueue over the whole run."""
    used: dict[str, float] = {}
    for at, kind, wl, cq in history:
        if kind == "evict":
            continue  # an evicted workload holds its quota until its pods stop ("release")
        amount = sum(wl.pod_sets[0].total().values()) / 1000
        sign = 1 if kind == "admit" else -1
        used[cq] = used.get(cq, 0.0) + sign * amount * (end_ms - at)
    return {cq: total / (end_ms - start_ms) for cq, total in used.items()}


def report(
    config: Config, result: dict[str, Any], paced: bool = False, hashing: bool = True
) -> None:
    published, bounds = config.published, RANGESPEC
    if published and not hashing:
        published, bounds = PUBLISHED_WITHOUT_HASHING, RANGESPEC_WITHOUT_HASHING
    print(
        f"workloads: {result['workloads']:.0f}, virtual time: {result['virtual_s']:.1f}s, evictions: {result['evictions']:g}"
    )
    target = 7.0 if paced else config.target_wall_s
    ratio = f", {KUEUE_WALL_S / result['wall_s']:.0f}x faster than Kueue's {KUEUE_WALL_S:.0f}s"
    print(
        f"wall time: {result['wall_s']:.2f}s (target <= {target:.0f}s){ratio if published else ''}"
    )
    print(
        f"ClusterQueue usage of nominal: min {result['min_usage_pct']:.1f}%, mean {result['avg_usage_pct']:.1f}%"
        + (_versus(result["avg_usage_pct"], "usage", published, bounds, "%") if published else "")
    )
    for cls in ("large", "medium", "small"):
        ours = result["avg_wait_s"][cls]
        theirs = _versus(ours, cls, published, bounds, "s") if published else ""
        print(f"avg time to admission {cls:>6}: {ours:8.2f}s{theirs}")
    groups = by_tens(result["large_wait_by_index_s"])
    print("large by arrival index, mean per ten:", " / ".join(f"{g:.1f}" for g in groups), "s")


def by_tens(by_index: dict[int, float]) -> list[float]:
    """Means over arrival indexes 0-9, 10-19, ... (each already a mean over queues)."""
    groups: dict[int, list[float]] = {}
    for index, value in by_index.items():
        groups.setdefault(index // 10, []).append(value)
    return [sum(v) / len(v) for _, v in sorted(groups.items())]


def _versus(
    ours: float, key: str, published: dict[str, float], bounds: dict[str, float], unit: str
) -> str:
    diff = (ours - published[key]) / published[key] * 100
    return (
        f" (Kueue published {published[key]:g}{unit}, {diff:+.0f}%;"
        f" rangespec.yaml {'>=' if key == 'usage' else '<='} {bounds[key]:g}{unit})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--large-scale", action="store_true", help="20 cohorts x 100 queues, 60,000 workloads"
    )
    parser.add_argument(
        "--latency",
        choices=sorted(LATENCIES),
        default="none",
        help="controller delays: none (the engine's default) or kueue (Kueue's harness)",
    )
    parser.add_argument(
        "--jitter-ms",
        type=int,
        default=0,
        help="spread each arrival by 0..N ms, seeded (default 0: all queues at once)",
    )
    parser.add_argument(
        "--equivalence-hashing",
        choices=("on", "off"),
        default="on",
        help="Kueue's SchedulingEquivalenceHashing gate (on from v0.18, as when the large"
        " figure was published; off in v0.17); only a paced replay depends on it",
    )
    parser.add_argument(
        "--create-ms",
        type=int,
        help="the runner's Create round trip, which delays each later workload of its set"
        f" (default: {HARNESS_CREATE_MS} with --latency kueue, else 0)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        default=1,
        help="with --jitter-ms: runs seeds 1..N and reports the mean",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.jitter_ms <= MAX_DELAY_MS:
        parser.error(f"--jitter-ms must be between 0 and {MAX_DELAY_MS}")
    if args.create_ms is None:
        args.create_ms = CREATE_MS[args.latency]
    if not 0 <= args.create_ms <= MAX_DELAY_MS:
        parser.error(f"--create-ms must be between 0 and {MAX_DELAY_MS}")
    if not 1 <= args.seeds <= MAX_SEEDS:
        parser.error(f"--seeds must be between 1 and {MAX_SEEDS}")
    config = LARGE_SCALE if args.large_scale else BASELINE
    latency, pod_stop_ms = LATENCIES[args.latency]
    seeds = range(1, max(1, args.seeds) + 1) if args.jitter_ms else [1]
    hashing = args.equivalence_hashing == "on"
    results = [
        run(
            config,
            latency,
            pod_stop_ms,
            jitter_ms=args.jitter_ms,
            seed=seed,
            equivalence_hashing=hashing,
            create_ms=args.create_ms,
        )
        for seed in seeds
    ]
    if len(results) > 1:
        for seed, result in zip(seeds, results, strict=True):
            waits = " / ".join(
                f"{result['avg_wait_s'][c]:.1f}" for c in ("large", "medium", "small")
            )
            print(
                f"seed {seed}: {result['wall_s']:.2f}s wall, usage {result['avg_usage_pct']:.1f}%,"
                f" time to admission large / medium / small {waits} s, evictions {result['evictions']}"
            )
        print(f"mean of {len(results)} seeds:")
    report(config, _mean(results), latency.paced, hashing)
    return 0


def _mean(results: list[dict[str, Any]]) -> dict[str, Any]:
    if len(results) == 1:
        return results[0]

    def average(values: list) -> Any:
        if isinstance(values[0], dict):
            return {key: average([v[key] for v in values]) for key in values[0]}
        return sum(values) / len(values)

    return {key: average([r[key] for r in results]) for key in results[0]}


if __name__ == "__main__":
    raise SystemExit(main())
