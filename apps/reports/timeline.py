"""Pure: one workload's recorded transitions → its runs, waits and pending spans.

Rules (times are Unix seconds):
* A wait opens at creation (``initial``) and again at each eviction, moved to the
  ``Requeued`` time when one follows (``requeue``); it closes at the next admission.
  A workload deleted or finished before admission leaves no wait.
* A run opens at admission with the flavors of the latest quota reservation (one
  run per flavor) and closes at eviction, finish or deletion. A ``Preempted``
  transition at the eviction's time marks the run preempted and names the preemptor.
* A pending span opens at each ``QuotaReserved=False`` reason while not admitted
  and closes at the next reason, admission or end.
Limitation: if the recorder missed an evict→re-admit pair entirely (a relist
after a long outage), the two runs are read as one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from apps.reports.choices import Transition
from apps.reports.compute.records import PendingSpan, Run, Wait

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


@dataclass(frozen=True)
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


@dataclass
class _State:
    info: WorkloadInfo
    runs: list[Run] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    pending: list[PendingSpan] = field(default_factory=list)
    wait_start: float | None = None
    wait_kind: str = "initial"
    run_start: float | None = None
    flavors: dict = field(default_factory=dict)
    checkpoint: float | None = None
    preempt: tuple[float, str, str] | None = None
    span: tuple[float, str] | None = None


def _close_span(s: _State, at: float | None) -> None:
    if s.span is not None:
        s.pending.append(PendingSpan(s.info.uid, s.info.gpus, s.span[1], s.span[0], at))
        s.span = None


def _close_run(s: _State, at: float | None) -> None:
    if s.run_start is None:
        return
    preempt = s.preempt if s.preempt and at is not None and s.preempt[0] == at else None
    info = s.info
    for flavor, gpus in (s.flavors or info.flavors()).items():
        s.runs.append(
            Run(
                info.uid, info.team, info.queue, info.tier, info.size, flavor, int(gpus),
                s.run_start, at, preempted=preempt is not None,
                preempt_reason=preempt[1] if preempt else "",
                preemptor_uid=preempt[2] if preempt else "",
                checkpoint=s.checkpoint, notebook=info.notebook,
            )
        )  # fmt: skip
    s.run_start, s.checkpoint = None, None


def _admit(s: _State, at: float) -> None:
    _close_span(s, at)
    if s.wait_start is not None:
        info = s.info
        s.waits.append(
            Wait(
                info.uid, info.team, info.queue, info.tier, info.size, s.wait_start, at, s.wait_kind
            )
        )
        s.wait_start = None
    if s.run_start is None:
        s.run_start, s.checkpoint = at, None


def _evict(s: _State, at: float) -> None:
    _close_run(s, at)
    s.wait_start, s.wait_kind = at, "requeue"


def _end(s: _State, at: float) -> None:
    _close_run(s, at)
    _close_span(s, at)
    s.wait_start = None


def _created(s: _State, at: float, reason: str, detail) -> None:
    s.wait_start, s.wait_kind = at, "initial"


def _pending(s: _State, at: float, reason: str, detail) -> None:
    if s.run_start is None:
        _close_span(s, at)
        s.span = (at, reason)


def _reserved(s: _State, at: float, reason: str, detail) -> None:
    s.flavors = (detail or {}).get("flavors") or s.flavors


def _checkpoint(s: _State, at: float, reason: str, detail) -> None:
    if s.run_start is not None and at >= s.run_start:
        s.checkpoint = at


def _preempted(s: _State, at: float, reason: str, detail) -> None:
    s.preempt = (at, reason, (detail or {}).get("preemptor_uid", ""))


def _requeued(s: _State, at: float, reason: str, detail) -> None:
    if s.run_start is None and s.wait_kind == "requeue":
        s.wait_start = at


# Plain-string keys: the loader hands rows straight from the database.
_STEPS = {
    str(Transition.CREATED): _created,
    str(Transition.PENDING): _pending,
    str(Transition.QUOTA_RESERVED): _reserved,
    str(Transition.ADMITTED): lambda s, at, reason, detail: _admit(s, at),
    str(Transition.CHECKPOINT): _checkpoint,
    str(Transition.PREEMPTED): _preempted,
    str(Transition.EVICTED): lambda s, at, reason, detail: _evict(s, at),
    str(Transition.REQUEUED): _requeued,
    str(Transition.FINISHED): lambda s, at, reason, detail: _end(s, at),
    str(Transition.DELETED): lambda s, at, reason, detail: _end(s, at),
}


def replay(info: WorkloadInfo, steps) -> tuple[list[Run], list[Wait], list[PendingSpan]]:
    """``steps``: (type, at, reason, detail) in time order (``RANK`` breaks ties)."""
    s = _State(info)
    for kind, at, reason, detail in steps:
        handler = _STEPS.get(kind)
        if handler is not None:
            handler(s, at, reason, detail)
    _close_run(s, None)
    _close_span(s, None)
    if s.wait_start is not None:
        s.waits.append(
            Wait(
                info.uid,
                info.team,
                info.queue,
                info.tier,
                info.size,
                s.wait_start,
                None,
                s.wait_kind,
            )
        )
    return s.runs, s.waits, s.pending
