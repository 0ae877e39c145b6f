"""A quoted job's start, estimated by running the cluster forward. Pure.

Every running and queued workload gets the run time its recorded history says
(``run_history``), once at the 50th and once at the 90th percentile, and the admission
model runs the cluster forward with the quoted job added last; its first admission in
each run is the ``p50`` and the ``p90`` estimate. A workload without a recorded run time
gets none: the model keeps it running, so a start that needs it to end is not found.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from apps.jobs.run_history import ExpectedRun
from informer import objects as o
from kueuemodel import DURATION_ANNOTATION, first_admissions, with_run_time

HORIZON_MS = 14 * 24 * 3_600_000


@dataclass(frozen=True)
class StartEstimate:
    """Epoch ms of the start at either percentile (None: not within the horizon);
    ``unknown`` names the workloads (``namespace/name``) without a recorded run time."""

    p50_ms: int | None
    p90_ms: int | None
    unknown: tuple[str, ...]


def estimate_start(
    objects: list[dict],
    workloads: list[dict],
    candidate: dict,
    *,
    now_ms: int,
    expected: dict[str, ExpectedRun],
) -> StartEstimate:
    """``workloads``: every unfinished Workload read from the cluster; ``expected``:
    ``namespace/name`` → the expected run of the ones whose history is known."""
    starts = [
        first_admissions(
            objects,
            [
                *(_with_expected(w, expected, pick, now_ms) for w in workloads),
                without_run_time(candidate),
            ],
            start_ms=now_ms,
            until_ms=now_ms + HORIZON_MS,
        )[-1]
        for pick in ("p50_s", "p90_s")
    ]
    unknown = tuple(sorted(o.key(w) for w in workloads if o.key(w) not in expected))
    return StartEstimate(starts[0], starts[1], unknown)


def _with_expected(workload: dict, expected: dict[str, ExpectedRun], pick: str, now_ms: int):
    run = expected.get(o.key(workload))
    if run is None:
        return without_run_time(workload)
    return with_run_time(
        without_run_time(workload),
        round(getattr(run, pick) * 1000),
        now_ms,
        bound_ms=run.bound_s * 1000,
    )


def without_run_time(obj: dict) -> dict:
    """A copy for the model (it writes status into what it is given), without the run time a simulated cluster annotates: no real cluster knows it."""
    obj = copy.deepcopy(obj)
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    annotations.pop(DURATION_ANNOTATION, None)
    return obj
