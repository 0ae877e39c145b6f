"""Predicted start times: the cluster as it is now, run forward with expected run times.

Pure: manifests in (the queue objects and every Workload, admitted ones with
their ``status.admission``), first admission per pending workload out.
"""

from __future__ import annotations

import copy
from typing import Any

from apps.whatif.replay.engine import POD_STOP_MS
from apps.whatif.replay.gcpause import cyclic_gc_paused
from apps.whatif.replay.manifests import DURATION_ANNOTATION
from apps.whatif.replay.stats import median
from apps.whatif.replay.trace import TraceWorkload
from informer.objects import condition, is_reserved
from kueuemodel import Simulation, parse_timestamp

DEFAULT_RUN_MS = 3_600_000
# A job already running longer than expected is assumed to need a tenth more.
OVERRUN_FRACTION = 0.1


def expected_runs(trace: list[TraceWorkload]) -> dict[tuple[str, int], int]:
    """Median run time per (queue, GPUs), plus per (queue, -1) and ("", -1) fallbacks."""
    groups: dict[tuple[str, int], list[int]] = {}
    for wl in trace:
        if wl.work_ms is None:
            continue
        for key in ((wl.queue, wl.gpus), (wl.queue, -1), ("", -1)):
            groups.setdefault(key, []).append(wl.work_ms)
    return {key: int(median(values)) for key, values in groups.items()}


def expected_run(runs: dict[tuple[str, int], int], queue: str, gpus: int) -> int:
    for key in ((queue, gpus), (queue, -1), ("", -1)):
        if key in runs:
            return runs[key]
    return DEFAULT_RUN_MS


def reserved_at(obj: dict) -> int | None:
    if not is_reserved(obj):
        return None
    return parse_timestamp(condition(obj, "QuotaReserved")["lastTransitionTime"])


def with_run_time(obj: dict, expected_ms: int, now_ms: int) -> dict:
    """A copy of ``obj`` that runs ``expected_ms`` (or a little past now, if already overdue)."""
    obj = copy.deepcopy(obj)
    run_ms = expected_ms
    started = reserved_at(obj)
    if started is not None:
        run_ms = max(expected_ms, now_ms - started + int(expected_ms * OVERRUN_FRACTION))
    annotations = obj.setdefault("metadata", {}).setdefault("annotations", {})
    annotations[DURATION_ANNOTATION] = f"{run_ms}ms"
    return obj


class _FirstAdmissions(list):
    """The engine's transition log, keeping only each workload's first admission."""

    def __init__(self):
        super().__init__()
        self.first: dict[str, int] = {}

    def append(self, item: tuple[int, str, Any, str]) -> None:
        at, kind, wl, _cq = item
        if kind == "admit":
            self.first.setdefault(wl.key, at)


def predict_starts(
    objects: list[dict], workloads: list[dict], *, now_ms: int, horizon_ms: int
) -> dict[str, int | None]:
    """``namespace/name`` → predicted admission (ms) of every pending workload (None: beyond horizon)."""
    sim = Simulation(
        objects, start_ms=now_ms, record_events=False, write_status=False, pod_stop_ms=POD_STOP_MS
    )
    log = _FirstAdmissions()
    sim.cluster.history = log
    pending = []
    for obj in workloads:
        meta = obj["metadata"]
        if not is_reserved(obj):
            pending.append(f"{meta.get('namespace') or 'default'}/{meta['name']}")
        sim.add_workload(obj)
    with cyclic_gc_paused():
        sim.run(until_ms=now_ms + horizon_ms)
    return {key: log.first.get(key) for key in pending}
