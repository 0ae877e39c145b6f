"""Pure: Kueue's Events on Workloads → the transitions they record.

After the recorder could not resume its watch (410 Gone), a relist shows only
each Workload's latest condition per type, so an evict → re-admit cycle in
between leaves no trace there. Kueue also records Events on the Workload, which
the API server keeps for a while (``--event-ttl``, 1 h by default):

* ``QuotaReserved`` ("Quota reserved in ClusterQueue …, wait time since queued was …")
  and ``Admitted`` at each admission;
* ``EvictedDueTo<Reason>`` (``EvictedDueToPreempted``, ``…PodsReadyTimeout``, …) at
  each eviction, and ``Preempted`` for a preemption, whose message names the
  preemptor ("Preempted to accommodate a workload (UID: …) due to <reason text>; …").

Kueue's recorder writes core/v1 Events with ``firstTimestamp``/``lastTimestamp``
(second precision, like condition times); events.k8s.io-style ones carry
``eventTime`` instead. An aggregated Event (``count`` > 1) keeps its first and
last occurrence only.
"""

from __future__ import annotations

from datetime import datetime

from informer.objects import parse_time, preemptor_uid
from informer.workload import Transition, TransitionFact

# What the recorder asks the API server for (the field selector Events support).
FIELD_SELECTOR = "involvedObject.kind=Workload"

_SIMPLE = {"QuotaReserved": Transition.QUOTA_RESERVED, "Admitted": Transition.ADMITTED}
_EVICTED_PREFIX = "EvictedDueTo"
# Kueue's human-readable preemption reasons (the "due to …" part of the message),
# longest first so "… while borrowing" is not read as plain reclamation.
_PREEMPTION_TEXT = (
    ("reclamation within the cohort while borrowing", "InCohortReclaimWhileBorrowing"),
    ("reclamation within the cohort", "InCohortReclamation"),
    ("fair sharing within the cohort", "InCohortFairSharing"),
    ("prioritization in the clusterqueue", "InClusterQueue"),
)


def occurrences(event: dict) -> list[datetime]:
    """When the Event happened: first and last occurrence (one time if they agree)."""
    first = parse_time(event.get("firstTimestamp")) or parse_time(event.get("eventTime"))
    last = parse_time(event.get("lastTimestamp")) or first
    return sorted({t for t in (first, last) if t is not None})


def preemption_reason(message: str) -> str:
    """The Preempted condition's reason, from the Event message's "due to …" text."""
    text = (message or "").lower().partition(" due to ")[2]
    return next((reason for words, reason in _PREEMPTION_TEXT if text.startswith(words)), "")


def _fact(reason: str, message: str, at: datetime) -> TransitionFact | None:
    if reason in _SIMPLE:
        return TransitionFact(_SIMPLE[reason], at, reason, message)
    if reason.startswith(_EVICTED_PREFIX) and len(reason) > len(_EVICTED_PREFIX):
        return TransitionFact(Transition.EVICTED, at, reason[len(_EVICTED_PREFIX) :], message)
    if reason == "Preempted":
        detail = {"preemptor_uid": preemptor_uid(message)} if preemptor_uid(message) else {}
        return TransitionFact(Transition.PREEMPTED, at, preemption_reason(message), message, detail)
    return None


def transitions(event: dict) -> list[tuple[str, TransitionFact]]:
    """(Workload UID, transition) pairs one Event shows; none for other kinds or reasons."""
    involved = event.get("involvedObject") or {}
    uid = involved.get("uid") or ""
    if involved.get("kind") != "Workload" or not uid:
        return []
    reason, message = event.get("reason") or "", (event.get("message") or "")[:1000]
    facts = (_fact(reason, message, at) for at in occurrences(event))
    return [(uid, fact) for fact in facts if fact is not None]


def oldest(events: list[dict]) -> datetime | None:
    """The earliest occurrence among Workload Events: how far back they reach."""
    times = [
        t
        for e in events
        if (e.get("involvedObject") or {}).get("kind") == "Workload"
        for t in occurrences(e)
    ]
    return min(times) if times else None
