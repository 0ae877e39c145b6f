"""Could a fair-sharing weight matter on this history? Look for contention in the record.

Under Kueue's fair sharing a weight decides two things only: which ClusterQueue of a
cohort tree gets capacity another queue lends, when several want it, and whose
borrowed workloads fair preemption takes back. Both need a moment when a workload
waits while another queue of its tree runs above its nominal quota (borrows): with no
such moment there was never anything for a weight to decide, and a weight-only draft
cannot change that history.

Everything here is pure: the policy's manifests and the recorded trace in, the first
moment of contention (or None) out.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from apps.whatif.replay.partition import cohort_groups
from apps.whatif.replay.trace import TraceWorkload, Window, is_gpu
from kueuemodel import Cluster, build_quota_tree, format_timestamp, load_specs

Cell = tuple[str, str]
"""(flavor, resource), as Kueue accounts quota."""


@dataclass(frozen=True)
class Contention:
    """At ``at_ms`` a workload of ``waiting`` waited while ``borrowing`` (same cohort
    tree) used more of ``cell`` than its nominal quota."""

    at_ms: int
    waiting: str
    borrowing: str
    cell: Cell


@dataclass(frozen=True)
class _Interval:
    start: int
    end: int
    queue: str
    cell: Cell | None  # None: a wait (no quota held)
    amount: int  # milli-units held


def first_contention(
    objects: list[dict[str, Any]],
    trace: list[TraceWorkload],
    window: Window,
    queues: set[str],
) -> Contention | None:
    """The first moment of ``window`` when, in a cohort tree holding one of ``queues``
    (ClusterQueue names), a workload waited while another queue borrowed; None if never."""
    cluster = Cluster()
    load_specs(cluster, objects)
    build_quota_tree(cluster)
    trees = [set(g) for g in cohort_groups([objects]) if len(g) > 1 and queues & set(g)]
    watched = set().union(*trees) if trees else set()
    intervals = [
        i
        for wl in trace
        for i in _intervals(cluster, wl, window)
        if i.queue in watched and i.end > i.start
    ]
    return _sweep(cluster, intervals, {q: frozenset(t) for t in trees for q in t})


def _intervals(cluster: Cluster, wl: TraceWorkload, window: Window) -> list[_Interval]:
    """The workload's waits and its runs (one interval per GPU cell it holds), clipped
    to the window. Waits are from creation to the first run and between runs."""
    lq = cluster.local_queues.get(f"{wl.namespace}/{wl.queue}")
    if lq is None or lq.cluster_queue not in cluster.cluster_queues:
        return []
    queue, runs = lq.cluster_queue, _runs(wl)
    out: list[_Interval] = []
    waiting_since: int | None = wl.created_ms
    for start, end in runs:
        if waiting_since is not None:
            out.append(_clip(window, waiting_since, start, queue, None, 0))
        for cell, amount in _cells(cluster, queue, wl).items():
            out.append(
                _clip(window, start, window.end_ms if end is None else end, queue, cell, amount)
            )
        waiting_since = end
    if waiting_since is not None and not (runs and runs[-1][1] is None):
        out.append(_clip(window, waiting_since, window.end_ms, queue, None, 0))
    return out


def _runs(wl: TraceWorkload) -> tuple[tuple[int, int | None], ...]:
    if wl.recorded_runs:
        return wl.recorded_runs
    if wl.recorded_admit_ms is None:
        return ()
    end = None if wl.work_ms is None else wl.recorded_admit_ms + wl.work_ms
    return ((wl.recorded_admit_ms, end),)


def _clip(window: Window, start: int, end: int, queue: str, cell, amount: int) -> _Interval:
    return _Interval(max(start, window.start_ms), min(end, window.end_ms), queue, cell, amount)


def _cells(cluster: Cluster, queue: str, wl: TraceWorkload) -> dict[Cell, int]:
    """GPU quota the workload holds in ``queue``: per resource, on the first flavor of the
    queue that covers it and whose node labels the pod set's selector carries (the
    recorded flavor is pinned that way, ``history._pod_set``)."""
    held: dict[Cell, int] = defaultdict(int)
    for pod_set in wl.pod_sets:
        for resource, amount in pod_set.requests.items():
            flavor = _flavor(cluster, queue, resource, pod_set.node_selector)
            if flavor is not None and is_gpu(resource):
                held[(flavor, resource)] += pod_set.count * amount * 1000
    return held


def _flavor(cluster: Cluster, queue: str, resource: str, selector: dict[str, str]) -> str | None:
    for group in cluster.cluster_queues[queue].resource_groups:
        for quotas in group.flavors:
            flavor = cluster.flavors.get(quotas.name)
            labels = flavor.node_labels if flavor else {}
            if resource in quotas.resources and labels.items() <= selector.items():
                return quotas.name
    return None


def _sweep(
    cluster: Cluster, intervals: list[_Interval], tree_of: dict[str, frozenset[str]]
) -> Contention | None:
    changes: dict[int, list[tuple[_Interval, int]]] = defaultdict(list)
    for interval in intervals:
        changes[interval.start].append((interval, 1))
        changes[interval.end].append((interval, -1))
    waiting: dict[str, int] = defaultdict(int)
    used: dict[str, dict[Cell, int]] = defaultdict(lambda: defaultdict(int))
    for at in sorted(changes):
        for interval, sign in changes[at]:
            if interval.cell is None:
                waiting[interval.queue] += sign
            else:
                used[interval.queue][interval.cell] += sign * interval.amount
        found = _contention_now(cluster, at, waiting, used, tree_of)
        if found is not None:
            return found
    return None


def _contention_now(cluster, at, waiting, used, tree_of) -> Contention | None:
    for queue in sorted(q for q, count in waiting.items() if count > 0):
        for other in sorted(tree_of[queue] - {queue}):
            nominal = cluster.cq_nodes[other].nominal
            for cell, amount in sorted(used[other].items()):
                if amount > nominal.get(cell, 0):
                    return Contention(at, queue, other, cell)
    return None


WEIGHT_FIELD = "fair_weight"


def is_weight_only(changes: dict[str, dict]) -> bool:
    """True when a run's field changes (``WhatIfRun.changes``) touch only queue weights."""
    fields = [c["field"] for queue in changes.values() for c in queue.get("changes", [])]
    return bool(fields) and all(f == WEIGHT_FIELD for f in fields)


def weight_note(
    changes: dict[str, dict], *, fair_sharing: bool, contention: Contention | None
) -> dict[str, Any] | None:
    """Whether a weight-only draft can matter, and why, in words (None: not weight-only)."""
    if not is_weight_only(changes):
        return None
    if not fair_sharing:
        why = (
            "This draft changes only fair-sharing weights, and fair sharing is off in this "
            "cluster's Kueue configuration: Kueue ignores weights, so the draft cannot "
            "change anything."
        )
        return {"can_matter": False, "why": why, "contention": None}
    if contention is None:
        why = (
            "This draft changes only fair-sharing weights. A weight only decides which queue "
            "gets capacity another queue of its cohort lends when several want it, and whose "
            "borrowed workloads fair preemption takes back. In the recorded period no workload "
            "of the drafted queues' cohorts waited while another queue of the cohort was "
            "borrowing, so there was nothing for a weight to decide: the draft cannot change "
            "this history."
        )
        return {"can_matter": False, "why": why, "contention": None}
    resource = f"{contention.cell[1]} on {contention.cell[0]}"
    why = (
        f"This draft changes only fair-sharing weights, and they can matter here: at "
        f"{format_timestamp(contention.at_ms)} a workload of {contention.waiting} waited while "
        f"{contention.borrowing} was borrowing {resource}."
    )
    return {"can_matter": True, "why": why, "contention": asdict(contention)}
