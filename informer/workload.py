"""What a Workload's conditions mean, decided once for every reader.

Kueue's own ``pkg/workload`` plays this part for its controllers. Here it does for ours:
job and notebook status (``apps/jobs/status.py``), the live views (``apps/live``), the
history recorder and the weekly report (``apps/reports``) all ask this module what state
a Workload is in, which transitions it shows, why it waits and what an eviction threw
away, so a job page, the live view and the report cannot disagree about one Workload.
Field accessors (names, queue, podSets, flavors) are in ``objects``. Pure: no database,
no cluster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TypeVar

from django.db import models

from informer import objects as o
from informer.objects import (
    condition,
    is_admitted,
    is_evicted,
    is_finished,
    is_preempted,
    is_reserved,
    parse_time,
    preemptor_uid,
)

__all__ = [
    "LAST_CHECKPOINT",
    "Pending",
    "Preemption",
    "State",
    "Transition",
    "TransitionFact",
    "is_admitted",
    "is_evicted",
    "is_finished",
    "is_preempted",
    "is_reserved",
    "ended_by_preemption",
    "last_checkpoint",
    "last_preemption",
    "lost_since",
    "pending",
    "reported_by",
    "reported_checkpoint",
    "state",
    "transitions",
]

# The checkpoint contract (docs/checkpoints.md): the RFC 3339 time of the newest
# checkpoint the job has written, as an annotation on its Workload, or as a line
# ``quartermaster.io/last-checkpoint=<time>`` in a container's termination message.
LAST_CHECKPOINT = "quartermaster.io/last-checkpoint"


# ----- state now -----------------------------------------------------------------------


class State(StrEnum):
    """Where a Workload stands now, from its conditions."""

    PENDING = "pending"
    QUOTA_RESERVED = "quota-reserved"
    ADMITTED = "admitted"
    # Quota still held while Kueue evicts it (the pods are stopping).
    EVICTED = "evicted"
    FINISHED = "finished"


def state(workload: dict) -> State:
    if is_finished(workload):
        return State.FINISHED
    if is_admitted(workload):
        return State.ADMITTED
    if is_reserved(workload):
        return State.EVICTED if is_evicted(workload) else State.QUOTA_RESERVED
    return State.PENDING


@dataclass(frozen=True)
class Pending:
    """Why Kueue has not reserved quota yet, in its own words (both may be "")."""

    reason: str = ""
    message: str = ""


def pending(workload: dict | None) -> Pending | None:
    """Kueue's reason for the wait while no quota is reserved (None once it is)."""
    if is_reserved(workload):
        return None
    cond = condition(workload, "QuotaReserved") or {}
    return Pending(cond.get("reason") or "", cond.get("message") or "")


# ----- transitions -------------------------------------------------------------------------


class Transition(models.TextChoices):
    """One step in a Workload's life, as its conditions (and our checkpoint note) show it."""

    CREATED = "created", "Created"
    PENDING = "pending", "Pending (not admitted, with a reason)"
    QUOTA_RESERVED = "quota_reserved", "Quota reserved"
    ADMITTED = "admitted", "Admitted"
    EVICTED = "evicted", "Evicted"
    PREEMPTED = "preempted", "Preempted"
    REQUEUED = "requeued", "Requeued"
    CHECKPOINT = "checkpoint", "Checkpoint written"
    FINISHED = "finished", "Finished"
    DELETED = "deleted", "Deleted"


@dataclass(frozen=True)
class TransitionFact:
    type: str
    at: datetime
    reason: str = ""
    message: str = ""
    detail: dict = field(default_factory=dict)
    # The time as the API server wrote it: a key that stays the same across versions.
    stamp: str = ""


# Conditions whose turning True is a transition of the same name.
_SIMPLE = {
    "Admitted": Transition.ADMITTED,
    "Evicted": Transition.EVICTED,
    "Requeued": Transition.REQUEUED,
    "Finished": Transition.FINISHED,
}


def _fact(kind: str, cond: dict, **detail) -> TransitionFact | None:
    stamp = cond.get("lastTransitionTime") or ""
    at = parse_time(stamp)
    if at is None:
        return None
    details = {k: v for k, v in detail.items() if v}
    return TransitionFact(
        kind, at, cond.get("reason") or "", cond.get("message") or "", details, stamp
    )


def _condition_facts(workload: dict) -> list[TransitionFact | None]:
    conds = o.conditions_by_type(workload)
    facts: list[TransitionFact | None] = []
    reserved = conds.get("QuotaReserved")
    if reserved and reserved.get("status") == "True":
        flavors = o.gpus_per_flavor(workload)
        facts.append(_fact(Transition.QUOTA_RESERVED, reserved, flavors=flavors))
    elif reserved and reserved.get("status") == "False":
        facts.append(_fact(Transition.PENDING, reserved))
    for ctype, kind in _SIMPLE.items():
        cond = conds.get(ctype)
        if cond and cond.get("status") == "True":
            facts.append(_fact(kind, cond))
    preempted = conds.get("Preempted")
    if preempted and preempted.get("status") == "True":
        uid = preemptor_uid(preempted.get("message", ""))
        facts.append(_fact(Transition.PREEMPTED, preempted, preemptor_uid=uid))
    return facts


def last_checkpoint(workload: dict, pods: list[dict] = ()) -> datetime | None:
    """When the job last wrote a checkpoint, as it reports it (None: it never did).

    Either report counts: the annotation on its Workload, or the line its pods left in
    their termination messages when stopped (``reported_checkpoint``); the newest wins.
    """
    reported = [parse_time(o.annotations(workload).get(LAST_CHECKPOINT)), reported_by(pods)]
    return max((t for t in reported if t is not None), default=None)


def reported_by(pods: list[dict]) -> datetime | None:
    """The newest checkpoint the pods' termination messages report (None: none does)."""
    reported = [reported_checkpoint(m) for pod in pods for m in o.termination_messages(pod)]
    return max((t for t in reported if t is not None), default=None)


def reported_checkpoint(message: str) -> datetime | None:
    """The time on the message's ``quartermaster.io/last-checkpoint=<RFC 3339>`` line;
    other lines (a trainer may say more) are ignored."""
    times = [
        parse_time(value.strip())
        for key, sep, value in (line.partition("=") for line in message.splitlines())
        if sep and key.strip() == LAST_CHECKPOINT
    ]
    return max((t for t in times if t is not None and t.tzinfo), default=None)


def transitions(workload: dict) -> list[TransitionFact]:
    """Every transition this version of the Workload shows, creation included.

    Kueue keeps only the latest transition per condition type, so this is the latest
    of each; a reader that keeps history stores each version's under a unique key.
    """
    created = parse_time(o.meta(workload).get("creationTimestamp"))
    facts = [TransitionFact(Transition.CREATED, created)] if created else []
    facts += [f for f in _condition_facts(workload) if f is not None]
    checkpoint = last_checkpoint(workload)
    if checkpoint is not None:
        detail = {"annotation": LAST_CHECKPOINT}
        facts.append(TransitionFact(Transition.CHECKPOINT, checkpoint, detail=detail))
    return facts


# ----- preemption and the work it lost -------------------------------------------------------


@dataclass(frozen=True)
class Preemption:
    stamp: str  # when: the eviction's time (Kueue sets both together), else the condition's
    reason: str
    message: str
    preemptor_uid: str


def last_preemption(workload: dict) -> Preemption | None:
    """The latest preemption its ``Preempted`` condition records (None: never preempted)."""
    cond = condition(workload, "Preempted")
    if not (cond and cond.get("status") == "True"):
        return None
    evicted = condition(workload, "Evicted") or {}
    stamp = evicted.get("lastTransitionTime") or cond.get("lastTransitionTime") or ""
    message = cond.get("message") or ""
    return Preemption(stamp, cond.get("reason") or "", message, preemptor_uid(message))


Instant = TypeVar("Instant", datetime, float)


def ended_by_preemption(evicted: Instant, preempted: Instant | None) -> bool:
    """Whether the eviction at ``evicted`` was a preemption: Kueue writes ``Preempted``
    with the eviction it causes, at the same time; one of another time (or none) means
    the eviction had another cause (a timeout, a deactivation, a deleted queue)."""
    return preempted is not None and preempted == evicted


def lost_since(
    admitted: Instant, evicted: Instant, checkpoint: Instant | None
) -> tuple[Instant, bool]:
    """Where the work an eviction threw away starts, and whether a checkpoint says so.

    The rule: since the run's last checkpoint when the job wrote one inside the run
    (between its admission and the eviction), else since the admission.
    """
    known = checkpoint is not None and admitted <= checkpoint <= evicted
    return (checkpoint if known else admitted), known
