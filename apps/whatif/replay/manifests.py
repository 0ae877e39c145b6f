"""Trace records as the Workload manifests the admission engine reads."""

from __future__ import annotations

from typing import Any

from apps.whatif.replay.trace import PodSetSpec, TraceWorkload
from kueuemodel import (
    DURATION_ANNOTATION,
    format_timestamp,
)  # DURATION_ANNOTATION: how long the model runs a workload

KUEUE_API = "kueue.x-k8s.io/v1beta2"


def on_grid(ms: int, grid_ms: int) -> int:
    """``ms`` rounded up to a multiple of ``grid_ms`` (1: unchanged)."""
    return -(-ms // grid_ms) * grid_ms


def workload_manifest(
    wl: TraceWorkload, *, work_ms: int | None = None, grid_ms: int = 1
) -> dict[str, Any]:
    """A fresh (pending) Workload; ``work_ms`` overrides the recorded run time.

    Run times are rounded up to ``grid_ms`` like arrivals, so that every event of the
    replay falls on the grid and many share an instant (one scheduling pass each).
    """
    work = wl.work_ms if work_ms is None else work_ms
    work = None if work is None else on_grid(max(0, work), grid_ms)
    meta: dict[str, Any] = {
        "name": wl.name,
        "namespace": wl.namespace,
        "uid": wl.uid,
        "creationTimestamp": format_timestamp(wl.created_ms),
    }
    if work is not None:
        meta["annotations"] = {DURATION_ANNOTATION: f"{work}ms"}
    spec = {
        "queueName": wl.queue,
        "priority": wl.priority,
        "podSets": [_pod_set(ps) for ps in wl.pod_sets],
    }
    return {"apiVersion": KUEUE_API, "kind": "Workload", "metadata": meta, "spec": spec}


def _pod_set(ps: PodSetSpec) -> dict[str, Any]:
    # Shared between manifests (read-only): a week has 50k workloads but a few dozen shapes.
    key = (
        ps.name,
        ps.count,
        tuple(sorted(ps.requests.items())),
        tuple(sorted(ps.node_selector.items())),
    )
    if key not in _POD_SETS:
        _POD_SETS[key] = _pod_set_manifest(ps)
    return _POD_SETS[key]


_POD_SETS: dict[tuple, dict[str, Any]] = {}


def _pod_set_manifest(ps: PodSetSpec) -> dict[str, Any]:
    requests = {resource: str(amount) for resource, amount in ps.requests.items()}
    pod_spec: dict[str, Any] = {
        "containers": [{"name": "main", "resources": {"requests": requests}}]
    }
    if ps.node_selector:
        pod_spec["nodeSelector"] = dict(ps.node_selector)
    return {"name": ps.name, "count": ps.count, "template": {"spec": pod_spec}}


def arrivals(trace: list[TraceWorkload], grid_ms: int = 1) -> list[tuple[int, dict[str, Any]]]:
    """``(arrival ms, manifest)`` pairs in arrival order, for ``Simulation.add_arrivals``.

    Arrivals move up to the next grid point; creation times (queue order) stay exact.
    """
    ordered = sorted(trace, key=lambda wl: (wl.created_ms, wl.key))
    return [
        (on_grid(wl.created_ms, grid_ms), workload_manifest(wl, grid_ms=grid_ms)) for wl in ordered
    ]
