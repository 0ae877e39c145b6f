"""Metric families over recorded state: one definition for live scrapes and backfill
(dcgm-exporter, OpenCost, Kueue here; kube-state-metrics in ``ksm``).

A ``View`` is a copy of what the controller recorded (GPU runs, nodes,
prices, queue gauges, admission waits). ``live(view, now)`` gives the
samples a scrape sees now; ``history(view, start, end, step)`` the same
series sampled over a past interval.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from . import catalog, profiles
from .devices import Device
from .recorder import GpuRun, PodWait

Labels = tuple[tuple[str, str], ...]
Points = list[tuple[int, float]]
# Kueue's generateExponentialBuckets(16): 1, then 2.5 doubling up to 40960 s.
WAIT_BUCKETS = (1.0, *(2.5 * 2**i for i in range(15)))
DRIVER_VERSION = "550.54.15"


@dataclass(frozen=True)
class Family:
    name: str
    kind: str
    help: str


GPU_FAMILIES = (
    Family("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %)."),
    Family(
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active."
    ),
    Family("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB)."),
    Family("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."),
)
COST = Family(
    "node_gpu_hourly_cost", "gauge", "node_gpu_hourly_cost hourly cost for each gpu on this node"
)
GPU_COUNT = Family("node_gpu_count", "gauge", "node_gpu_count count of gpus on this node")
ALLOCATION = Family("container_gpu_allocation", "gauge", "container_gpu_allocation GPU used")
WAIT = Family(
    "kueue_admission_wait_time_seconds",
    "histogram",
    "The time between a workload was created or requeued until admission, per 'cluster_queue'",
)
GAUGE_HELP = {
    "kueue_pending_workloads": "The number of pending workloads, per 'cluster_queue' and 'status'.",
    "kueue_admitted_active_workloads": "The number of admitted Workloads that are active (unsuspended and not finished), per 'cluster_queue'",
    "kueue_reserving_active_workloads": "The number of Workloads that are reserving quota, per 'cluster_queue'",
}


@dataclass
class View:
    runs: list[GpuRun]
    nodes: dict[str, dict[str, str]]
    node_gpus: dict[str, int]
    prices: dict[str, float]
    gauges: dict[tuple[str, Labels], Points]
    waits: list[tuple[int, str, str, float]]
    unschedulable: list[PodWait] = field(default_factory=list)
    node_resources: dict[str, dict[str, int]] = field(default_factory=dict)  # node → GPU units


# ----- per-GPU samples -------------------------------------------------------------


def gpu_labels(run: GpuRun, node_labels: dict[str, str]) -> Labels:
    """dcgm-exporter's label set, in its order (MIG adds GPU_I_PROFILE/GPU_I_ID)."""
    device = Device(run.node, run.resource, run.slot)
    labels = [
        ("gpu", str(device.gpu_index)),
        ("UUID", device.uuid),
        ("pci_bus_id", device.pci_bus_id),
        ("device", f"nvidia{device.gpu_index}"),
        ("modelName", catalog.model_for(node_labels).name),
    ]
    if device.profile:
        labels += [("GPU_I_PROFILE", device.profile), ("GPU_I_ID", str(device.instance_id))]
    labels += [
        ("Hostname", run.node),
        ("DCGM_FI_DRIVER_VERSION", DRIVER_VERSION),
        ("container", run.container),
        ("namespace", run.namespace),
        ("pod", run.pod),
    ]
    return tuple(labels)


def gpu_values(run: GpuRun, node_labels: dict[str, str], at_ms: int) -> dict[str, float | None]:
    """One reading of every GPU family; None where dcgm-exporter reports nothing (MIG)."""
    util = profiles.utilization(
        run.utilization, f"{run.node}/{run.resource}/{run.slot}/{run.pod}", at_ms
    )
    model = catalog.model_for(node_labels)
    profile = Device(run.node, run.resource, run.slot).profile
    memory = (
        catalog.MIG_MEMORY_MIB.get(profile or "", model.memory_mib) if profile else model.memory_mib
    )
    used = round(memory * (0.05 + 0.85 * util / 100)) if util else 0
    power = round(model.idle_watts + (model.max_watts - model.idle_watts) * util / 100, 1)
    return {
        "DCGM_FI_DEV_GPU_UTIL": None if profile else util,
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE": round(util / 100 * 0.92, 3),
        "DCGM_FI_DEV_FB_USED": used,
        "DCGM_FI_DEV_POWER_USAGE": None if profile else power,
    }


def node_cost_labels(node: str, labels: dict[str, str]) -> Labels:
    return (
        ("arch", labels.get("kubernetes.io/arch", "amd64")),
        ("instance", node),
        ("instance_type", catalog.instance_type(labels)),
        ("node", node),
        ("provider_id", f"simcluster://{node}"),
        ("region", labels.get("topology.kubernetes.io/region", "on-prem")),
    )


def allocation_labels(run: GpuRun) -> Labels:
    return (
        ("container", run.container),
        ("instance", run.node),
        ("namespace", run.namespace),
        ("node", run.node),
        ("pod", run.pod),
    )


# ----- live --------------------------------------------------------------------------


def live(view: View, now_ms: int) -> list[tuple[Family, list[tuple[Labels, float]]]]:
    """Every family with its current samples."""
    out: list[tuple[Family, list[tuple[Labels, float]]]] = []
    running = [
        r for r in view.runs if r.start_ms <= now_ms and (r.end_ms is None or r.end_ms > now_ms)
    ]
    for family in GPU_FAMILIES:
        samples = []
        for run in running:
            node_labels = view.nodes.get(run.node, {})
            value = gpu_values(run, node_labels, now_ms)[family.name]
            if value is not None:
                samples.append((gpu_labels(run, node_labels), value))
        out.append((family, samples))
    out.append(
        (
            COST,
            [
                (node_cost_labels(n, view.nodes[n]), catalog.price_for(view.prices, view.nodes[n]))
                for n in sorted(view.node_gpus)
            ],
        )
    )
    out.append(
        (
            GPU_COUNT,
            [
                (node_cost_labels(n, view.nodes[n]), float(c))
                for n, c in sorted(view.node_gpus.items())
            ],
        )
    )
    out.append((ALLOCATION, sorted(_allocations(running).items())))
    out.extend(_live_gauges(view))
    return out


def _allocations(runs: list[GpuRun]) -> dict[Labels, float]:
    counts: dict[Labels, float] = {}
    for run in runs:
        key = allocation_labels(run)
        counts[key] = counts.get(key, 0) + 1
    return counts


def _live_gauges(view: View) -> list[tuple[Family, list[tuple[Labels, float]]]]:
    by_name: dict[str, list[tuple[Labels, float]]] = {name: [] for name in GAUGE_HELP}
    for (name, labels), points in sorted(view.gauges.items()):
        if points and name in by_name:
            by_name[name].append((labels, points[-1][1]))
    return [(Family(name, "gauge", GAUGE_HELP[name]), samples) for name, samples in by_name.items()]


def wait_histograms(
    waits: list[tuple[int, str, str, float]], until_ms: int
) -> dict[Labels, tuple[list[int], int, float]]:
    """Cumulative bucket counts, count and sum per (cluster_queue, priority_class)."""
    out: dict[Labels, tuple[list[int], int, float]] = {}
    for at, cq, pclass, seconds in waits:
        if at > until_ms:
            break
        key = (("cluster_queue", cq), ("priority_class", pclass))
        buckets, count, total = out.get(key, ([0] * len(WAIT_BUCKETS), 0, 0.0))
        for i, bound in enumerate(WAIT_BUCKETS):
            if seconds <= bound:
                buckets[i] += 1
        out[key] = (buckets, count + 1, total + seconds)
    return out


# ----- history ---------------------------------------------------------------------


def grid(start_ms: int, end_ms: int, step_ms: int, lo: int, hi: int | None) -> range:
    """Grid points (multiples of step from start) inside [lo, hi)."""
    first = max(start_ms, lo)
    first = start_ms + -(-(first - start_ms) // step_ms) * step_ms
    last = min(end_ms, (hi - 1) if hi is not None else end_ms)
    return range(first, last + 1, step_ms)


def history_gpu(
    view: View, family: Family, start: int, end: int, step: int
) -> Iterator[tuple[Labels, Points]]:
    """One series per GPU label set; runs of a recreated pod with the same name are merged."""
    series: dict[Labels, Points] = {}
    for run in sorted(view.runs, key=lambda r: r.start_ms):
        node_labels = view.nodes.get(run.node, {})
        labels = gpu_labels(run, node_labels)
        for at in grid(start, end, step, run.start_ms, run.end_ms):
            value = gpu_values(run, node_labels, at)[family.name]
            if value is not None:
                series.setdefault(labels, []).append((at, value))
    for labels in sorted(series):
        yield labels, _dedupe(series[labels])


def history_allocation(
    view: View, start: int, end: int, step: int
) -> Iterator[tuple[Labels, Points]]:
    counts: dict[Labels, dict[int, float]] = {}
    for run in view.runs:
        per_time = counts.setdefault(allocation_labels(run), {})
        for at in grid(start, end, step, run.start_ms, run.end_ms):
            per_time[at] = per_time.get(at, 0) + 1
    for labels in sorted(counts):
        yield labels, sorted(counts[labels].items())


def history_steps(points: Points, start: int, end: int, step: int) -> Points:
    """Sample a step function (value holds until the next point)."""
    out, index = [], 0
    for at in range(start, end + 1, step):
        while index + 1 < len(points) and points[index + 1][0] <= at:
            index += 1
        if points and points[index][0] <= at:
            out.append((at, points[index][1]))
    return out


def _dedupe(points: Points) -> Points:
    """Strictly increasing timestamps: promtool silently drops repeats."""
    out: Points = []
    for at, value in points:
        if not out or at > out[-1][0]:
            out.append((at, value))
    return out


def snapshot(ctl: Any) -> View:
    """Copy what the families need out of the controller (call with its lock held)."""
    cluster = ctl.sim.cluster
    nodes = {name: dict(node.labels) for name, node in cluster.nodes.items()}
    gpus = {
        name: sum(v for r, v in node.allocatable.items() if r.startswith("nvidia.com/")) // 1000
        for name, node in cluster.nodes.items()
    }
    configmap = ctl.store.get(("", "configmaps"), catalog.PRICE_CONFIGMAP)
    resources = {
        name: {
            r: v // 1000 for r, v in node.allocatable.items() if r.startswith("nvidia.com/") and v
        }
        for name, node in cluster.nodes.items()
    }
    return View(
        unschedulable=[PodWait(**vars(w)) for w in ctl.recorder.unschedulable],
        node_resources={n: per for n, per in resources.items() if per},
        runs=[GpuRun(**vars(r)) for r in ctl.recorder.runs],
        nodes=nodes,
        node_gpus={n: c for n, c in gpus.items() if c},
        prices=catalog.prices_with_configmap(ctl.prices or catalog.DEFAULT_PRICES, configmap),
        gauges={k: list(v) for k, v in ctl.recorder.gauges.items()},
        waits=list(ctl.recorder.waits),
    )
