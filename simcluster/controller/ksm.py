"""kube-state-metrics families over recorded state, live and for backfill.

``kube_node_labels`` (every node label as ``label_<name>``, as OpenCost emits it),
``kube_node_status_allocatable``, ``kube_pod_container_resource_requests``,
``kube_pod_status_phase`` (only the current phase), ``kube_pod_status_unschedulable``
and ``kube_pod_owner`` — for pods holding GPUs and pods of admitted Workloads that no
node could take. Only GPU resources are exported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .recorder import GpuRun, PodWait
from .series import Family, Labels, Points, View, grid

NODE_LABELS = Family(
    "kube_node_labels", "gauge", "Kubernetes labels converted to Prometheus labels."
)
ALLOCATABLE = Family(
    "kube_node_status_allocatable",
    "gauge",
    "The allocatable for different resources of a node that are available for scheduling.",
)
REQUESTS = Family(
    "kube_pod_container_resource_requests",
    "gauge",
    "The number of requested request resource by a container.",
)
PHASE = Family("kube_pod_status_phase", "gauge", "The pods current phase.")
UNSCHEDULABLE = Family(
    "kube_pod_status_unschedulable", "gauge", "Describes the unschedulable status for the pod."
)
POD_OWNER = Family("kube_pod_owner", "gauge", "Information about the Pod's owner.")


def node_label_labels(node: str, labels: dict[str, str]) -> Labels:
    """``kube_node_labels``: every node label as ``label_<name>``, the name sanitised to a
    Prometheus label name (as OpenCost emits them; kube-state-metrics v2 only the
    allow-listed ones)."""
    pairs = {f"label_{re.sub(r'[^a-zA-Z0-9_]', '_', k)}": v for k, v in labels.items()}
    return (("node", node), *sorted(pairs.items()))


def resource_label(resource: str) -> str:
    """kube-state-metrics' spelling: ``nvidia.com/mig-1g.10gb`` → ``nvidia_com_mig_1g_10gb``."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", resource)


Span = tuple[Labels, int, int | None, float]  # (labels, from, until, value; 0.0 = flag)


def placement_spans(view: View) -> dict[Family, list[Span]]:
    """kube-state-metrics' pod placement series as spans: requests and phase of pods
    holding GPUs (bound to a node, Running) and of pods no node could take (no node,
    Pending, unschedulable)."""
    spans: dict[Family, list[Span]] = {REQUESTS: [], PHASE: [], UNSCHEDULABLE: []}
    for run in view.runs:
        ns, pod = ("namespace", run.namespace), ("pod", run.pod)
        request = (("container", run.container), ns, ("node", run.node), pod,
                   ("resource", resource_label(run.resource)), ("unit", "integer"))  # fmt: skip
        spans[REQUESTS].append((request, run.start_ms, run.end_ms, 1.0))
        spans[PHASE].append(((ns, ("phase", "Running"), pod), run.start_ms, run.end_ms, 0.0))
    for item in view.unschedulable:
        ns, pod = ("namespace", item.namespace), ("pod", item.pod)
        request = (("container", item.container), ns, pod,
                   ("resource", resource_label(item.resource)), ("unit", "integer"))  # fmt: skip
        spans[REQUESTS].append((request, item.start_ms, item.end_ms, float(item.units)))
        spans[PHASE].append(((ns, ("phase", "Pending"), pod), item.start_ms, item.end_ms, 0.0))
        spans[UNSCHEDULABLE].append(((ns, pod), item.start_ms, item.end_ms, 0.0))
    return spans


def _add(total: float | None, value: float) -> float:
    """Values add up (one per GPU slot); a flag (0.0) is 1 however often it is set."""
    return (total or 0.0) + value if value else 1.0


def span_values(spans: list[Span], at_ms: int) -> dict[Labels, float]:
    out: dict[Labels, float] = {}
    for labels, lo, hi, value in spans:
        if lo <= at_ms and (hi is None or hi > at_ms):
            out[labels] = _add(out.get(labels), value)
    return out


def allocatable_labels(node: str, resource: str) -> Labels:
    return (("node", node), ("resource", resource_label(resource)), ("unit", "integer"))


def owner_labels(run: GpuRun | PodWait) -> Labels:
    """kube-state-metrics' ``kube_pod_owner`` labels for the pod that holds ``run``."""
    return (
        ("namespace", run.namespace),
        ("owner_is_controller", "true" if run.owner_kind != "<none>" else "<none>"),
        ("owner_kind", run.owner_kind),
        ("owner_name", run.owner_name),
        ("pod", run.pod),
    )


def live(view: View, now_ms: int) -> list[tuple[Family, list[tuple[Labels, float]]]]:
    """Every kube-state-metrics family with its current samples."""
    out: list[tuple[Family, list[tuple[Labels, float]]]] = []
    out.append(
        (NODE_LABELS, [(node_label_labels(n, view.nodes[n]), 1.0) for n in sorted(view.node_gpus)])
    )
    out.append(
        (ALLOCATABLE, [(allocatable_labels(n, r), float(units))
                       for n, per in sorted(view.node_resources.items()) for r, units in sorted(per.items())])
    )  # fmt: skip
    for family, spans in placement_spans(view).items():
        out.append((family, sorted(span_values(spans, now_ms).items())))
    waiting = [
        w
        for w in view.unschedulable
        if w.start_ms <= now_ms and (w.end_ms is None or w.end_ms > now_ms)
    ]
    owners = {owner_labels(r) for r in [*_current(view.runs, now_ms), *waiting]}
    out.append((POD_OWNER, [(labels, 1.0) for labels in sorted(owners)]))
    return out


def _current(runs: list[GpuRun], now_ms: int) -> list[GpuRun]:
    return [r for r in runs if r.start_ms <= now_ms and (r.end_ms is None or r.end_ms > now_ms)]


def history_owners(view: View, start: int, end: int, step: int) -> Iterator[tuple[Labels, Points]]:
    """``kube_pod_owner`` = 1 while the pod holds GPUs or waits for a node (one series per pod)."""
    times: dict[Labels, set[int]] = {}
    for run in [*view.runs, *view.unschedulable]:
        times.setdefault(owner_labels(run), set()).update(
            grid(start, end, step, run.start_ms, run.end_ms)
        )
    for labels in sorted(times):
        if times[labels]:
            yield labels, [(at, 1.0) for at in sorted(times[labels])]


def history_spans(
    spans: list[Span], start: int, end: int, step: int
) -> Iterator[tuple[Labels, Points]]:
    """The spans sampled on the grid, one series per label set (as ``span_values``)."""
    series: dict[Labels, dict[int, float]] = {}
    for labels, lo, hi, value in spans:
        per_time = series.setdefault(labels, {})
        for at in grid(start, end, step, lo, hi):
            per_time[at] = _add(per_time.get(at), value)
    for labels in sorted(series):
        if series[labels]:
            yield labels, sorted(series[labels].items())
