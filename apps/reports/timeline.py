"""Pure: one workload's recorded transitions → its runs, waits and pending spans.

Rules (times are Unix seconds):
* A wait opens at creation (``initial``) and again at each eviction, moved to the
  ``Requeued`` time when one follows (``requeue``); it closes at the next admission.
  A workload deleted or finished before admission leaves no wait.
* A run opens at admission with the flavors of the latest quota reservation (one
  run per flavor) and closes at eviction, finish or deletion. The run ended by
  preemption (``informer.workload.ended_by_preemption``: a ``Preempted`` transition
  at the eviction's time) is marked preempted, naming the preemptor.
* A pending span opens at each ``QuotaReserved=False`` reason while not admitted
  and closes at the next reason, admission or end.
Limitation: if the recorder missed an evict→re-admit pair entirely (a relist
after a long outage) and Kueue's Events no longer showed it, the two runs are
read as one; the outage is then a history gap whose waits the report does not
count (``compute.waits``, docs/operations.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from apps.reports.compute.records import PendingSpan, Run, Wait
from informer.workload import Transition, ended_by_preemption

# Order of transitions sharing one timestamp.
RANK = {
    t: i
    for i, t in enumerate(
        (
            Transition.CREATED,
            Transition.PENDING,
            Transition.QUOTA_RESERVED,
            Transition.ADMITTED,
            Transition.CHECKPOINT,
            Transition.PREEMPTED,
            Transition.EVICTED,
            Transition.REQUEUED,
            Transition.FINISHED,
            Transition.DELETED,
        )
    )
}


@dataclass(slots=True, unsafe_hash=True)  # not frozen: see records.Run
class WorkloadInfo:
    uid: str
    team: str
    queue: str
    tier: str
    size: str
    gpus: int
    notebook: bool = False
    # The summary's GPUs per flavor as JSON text, read only when the history lacks
    # a quota reservation (parsing it for every workload would cost the loader).
    gpus_by_flavor_json: str = "{}"

    def flavors(self) -> dict:
        return json.loads(self.gpus_by_flavor_json or "{}") or {"": self.gpus}


# Plain strings of the one Transition enum: the loop below compares every step of
# ~200,000 workloads with them, and a str's == is cheaper than the enum's lookup.
_CREATED, _PENDING = Transition.CREATED.value, Transition.PENDING.value
_RESERVED, _ADMITTED = Transition.QUOTA_RESERVED.value, Transition.ADMITTED.value
_CHECKPOINT, _PREEMPTED = Transition.CHECKPOINT.value, Transition.PREEMPTED.value
_EVICTED, _REQUEUED = Transition.EVICTED.value, Transition.REQUEUED.value
_ENDS = (Transition.FINISHED.value, Transition.DELETED.value)


def replay(info: WorkloadInfo, steps) -> tuple[list[Run], list[Wait], list[PendingSpan]]:
    """``steps``: (type, at, reason, detail) in time order (``RANK`` breaks ties).

    One loop over plain locals: a report replays ~200,000 workloads, so per-step
    method calls and state objects were most of its cost.
    """
    runs: list[Run] = []
    waits: list[Wait] = []
    pending: list[PendingSpan] = []
    wait_start: float | None = None
    wait_kind = "initial"
    run_start: float | None = None
    flavors: dict = {}
    checkpoint: float | None = None
    preempt: tuple[float, str, str] | None = None
    span: tuple[float, str] | None = None
    for kind, at, reason, detail in steps:
        if kind == _ADMITTED:
            if span is not None:
                pending.append(PendingSpan(info.uid, info.gpus, span[1], span[0], at))
                span = None
            if wait_start is not None:
                waits.append(_wait(info, wait_start, at, wait_kind))
                wait_start = None
            if run_start is None:
                run_start, checkpoint = at, None
        elif kind == _CREATED:
            wait_start, wait_kind = at, "initial"
        elif kind == _RESERVED:
            flavors = (detail or {}).get("flavors") or flavors
        elif kind in _ENDS or kind == _EVICTED:
            if run_start is not None:
                _close_run(runs, info, flavors, run_start, at, preempt, checkpoint)
                run_start, checkpoint = None, None
            if kind == _EVICTED:
                wait_start, wait_kind = at, "requeue"
            else:
                if span is not None:
                    pending.append(PendingSpan(info.uid, info.gpus, span[1], span[0], at))
                    span = None
                wait_start = None
        elif kind == _PENDING:
            if run_start is None:
                if span is not None:
                    pending.append(PendingSpan(info.uid, info.gpus, span[1], span[0], at))
                span = (at, reason)
        elif kind == _CHECKPOINT:
            if run_start is not None and at >= run_start:
                checkpoint = at
        elif kind == _PREEMPTED:
            preempt = (at, reason, (detail or {}).get("preemptor_uid", ""))
        elif kind == _REQUEUED and run_start is None and wait_kind == "requeue":
            wait_start = at
    if run_start is not None:
        _close_run(runs, info, flavors, run_start, None, preempt, checkpoint)
    if span is not None:
        pending.append(PendingSpan(info.uid, info.gpus, span[1], span[0], None))
    if wait_start is not None:
        waits.append(_wait(info, wait_start, None, wait_kind))
    return runs, waits, pending


def _wait(info: WorkloadInfo, start: float, end: float | None, kind: str) -> Wait:
    return Wait(info.uid, info.team, info.queue, info.tier, info.size, start, end, kind)


def _close_run(runs: list[Run], info: WorkloadInfo, flavors: dict, start: float,
               at: float | None, preempt, checkpoint: float | None) -> None:  # fmt: skip
    """One run per flavor of the latest reservation; preempted if the preemption is at ``at``."""
    if preempt and at is not None and ended_by_preemption(at, preempt[0]):
        preempted, reason, preemptor = True, preempt[1], preempt[2]
    else:
        preempted, reason, preemptor = False, "", ""
    # Positional, in Run's field order: keywords cost ~240,000 runs a parse each.
    for flavor, gpus in (flavors or info.flavors()).items():
        runs.append(
            Run(
                info.uid, info.team, info.queue, info.tier, info.size, flavor, int(gpus),
                start, at, preempted, reason, preemptor, checkpoint, info.notebook,
            )
        )  # fmt: skip
