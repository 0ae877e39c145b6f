"""Predicted start times: the cluster as it is now, run forward with expected run times.

Pure: manifests in (the queue objects and every Workload, admitted ones with
their ``status.admission``), first admission per pending workload out.
"""

from __future__ import annotations

from apps.whatif.replay.engine import POD_STOP_MS
from apps.whatif.replay.gcpause import cyclic_gc_paused
from apps.whatif.replay.trace import TraceWorkload
from core.stats import median
from informer.objects import is_reserved
from kueuemodel import first_admissions

DEFAULT_RUN_MS = 3_600_000


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


def predict_starts(
    objects: list[dict], workloads: list[dict], *, now_ms: int, horizon_ms: int
) -> dict[str, int | None]:
    """``namespace/name`` → predicted admission (ms) of every pending workload (None: beyond horizon)."""
    with cyclic_gc_paused():
        starts = first_admissions(
            objects,
            workloads,
            start_ms=now_ms,
            until_ms=now_ms + horizon_ms,
            pod_stop_ms=POD_STOP_MS,
        )
    return {
        f"{obj['metadata'].get('namespace') or 'default'}/{obj['metadata']['name']}": start
        for obj, start in zip(workloads, starts, strict=True)
        if not is_reserved(obj)
    }
