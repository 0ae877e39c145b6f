"""Running the cluster's present state forward: when each workload is first admitted.

The start-time estimates of queued work (``apps.whatif``) and a job's quote
(``apps.jobs``) both give every workload an expected run time
(``with_run_time``) and ask when each one would first be admitted
(``first_admissions``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import admission_order
from .clock import parse_timestamp
from .parse import DURATION_ANNOTATION
from .simulation import NEXT_INSTANT_MS, Simulation
from .status import writable_status

# A workload already running longer than expected is assumed to need a tenth more.
OVERRUN_FRACTION = 0.1


def reserved_at_ms(obj: dict) -> int | None:
    """When Kueue reserved quota for ``obj`` (its ``QuotaReserved`` condition), if it has."""
    for cond in (obj.get("status") or {}).get("conditions") or ():
        if cond.get("type") == "QuotaReserved" and cond.get("status") == "True":
            return parse_timestamp(cond["lastTransitionTime"])
    return None


def model_copy(obj: dict) -> dict:
    """A copy of ``obj`` the model may be given: its own top level, metadata, annotations
    and status (``writable_status``), the parts a simulation writes (``parse_workload``
    and ``_accept`` fill in metadata, the status writer the conditions and admission); the
    spec and the rest are shared with ``obj``, since the model only reads them. A fraction
    of a deep copy's cost: the pod template is most of a Workload."""
    meta = obj.get("metadata") or {}
    copied = {**obj, "metadata": {**meta, "annotations": dict(meta.get("annotations") or {})}}
    if isinstance(obj.get("status"), dict):
        copied["status"] = writable_status(obj["status"])
    return copied


def with_run_time(obj: dict, expected_ms: int, now_ms: int, *, bound_ms: int | None = None) -> dict:
    """A copy of ``obj`` (``model_copy``) that runs ``expected_ms`` from its admission (or
    a little past now, if already overdue), never past ``bound_ms`` (its maximum run time)."""
    obj = model_copy(obj)
    run_ms = expected_run_ms(reserved_at_ms(obj), expected_ms, now_ms, bound_ms=bound_ms)
    obj["metadata"]["annotations"][DURATION_ANNOTATION] = f"{run_ms}ms"
    return obj


def expected_run_ms(
    started_ms: int | None, expected_ms: int, now_ms: int, *, bound_ms: int | None = None
) -> int:
    """How long a workload started at ``started_ms`` (None: not yet) is taken to run in
    all: ``expected_ms``, or a tenth of it past now if it is already overdue, never more
    than ``bound_ms``."""
    run_ms = expected_ms
    if started_ms is not None:
        run_ms = max(expected_ms, now_ms - started_ms + int(expected_ms * OVERRUN_FRACTION))
    return run_ms if bound_ms is None else min(run_ms, bound_ms)


class _FirstAdmissions(list):
    """The engine's transition log, keeping only each workload's first admission."""

    def __init__(self):
        super().__init__()
        self.first: dict[str, int] = {}

    def append(self, item: tuple[int, str, Any, str]) -> None:
        at, kind, wl, _cq = item
        if kind == "admit":
            self.first.setdefault(wl.key, at)


def first_admissions(
    objects: list[dict],
    workloads: list[dict],
    *,
    start_ms: int,
    until_ms: int,
    pod_stop_ms: int = NEXT_INSTANT_MS,
    arrivals: Sequence[tuple[int, dict]] = (),
) -> list[int | None]:
    """The first admission (epoch ms) of each of ``workloads`` (Workloads or batch/v1
    Jobs, in order) in a run from ``start_ms`` to ``until_ms``; None when not admitted
    within it. Only the answers for workloads not yet holding quota mean a start.
    ``arrivals``: ``(epoch ms, manifest)`` of work submitted during the run."""
    sim = Simulation(
        objects, start_ms=start_ms, record_events=False, write_status=False, pod_stop_ms=pod_stop_ms
    )
    # A forecast continues a running Kueue: its fair-between-users usage is the reported one.
    admission_order.resume_reported(
        sim.cluster, [o for o in objects if o.get("kind") == "LocalQueue"]
    )
    log = _FirstAdmissions()
    sim.cluster.history = log
    keys = []
    for obj in workloads:
        sim.add_workload(obj)
        # The model names a Job's Workload itself; the newest key is the one just added.
        keys.append(next(reversed(sim.cluster.workloads), None))
    sim.add_arrivals(list(arrivals))
    sim.run(until_ms=until_ms)
    return [log.first.get(key) for key in keys]
