"""A quoted workload's risk of being preempted once running. Pure.

Two halves, kept apart because they answer different questions:

* who could preempt it, from Kueue's classical preemption rules and the ClusterQueues
  as the cluster has them: its own queue's ``withinClusterQueue`` (against higher, or
  also older equal, priorities), and, only when its queue borrows, the other queues of
  its cohort tree reclaiming (their ``reclaimWithinCohort``) or preempting while they
  borrow themselves (their ``borrowWithinCohort``);
* how often that happened lately to work of its priority tier: recorded preemptions ÷
  admitted hours, and P(at least one preemption over its run) = 1 − exp(−rate × hours),
  the chance of at least one event of a Poisson process at that rate.

No admitted hours recorded: no rate and no probability, with the reason; never a guess.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from kueuemodel import quantity_value

NEVER, LOWER, LOWER_OR_NEWER_EQUAL, ANY = (
    "Never",
    "LowerPriority",
    "LowerOrNewerEqualPriority",
    "Any",
)
# JobEvent kinds (``apps.jobs.choices.JobEventKind``) that open and close an admitted run.
OPENS = "admitted"
CLOSES = ("preempted", "evicted", "finished", "cancelled")


@dataclass(frozen=True)
class TierHistory:
    """What was recorded of a priority tier's work over the history window."""

    tier: str
    preemptions: int
    admitted_hours: float
    scope: str  # in words: whose work, where, over how long


@dataclass(frozen=True)
class PreemptionRisk:
    by_policy: tuple[str, ...]  # who could preempt it; empty: nobody
    policy_summary: str
    history: TierHistory | None
    run_hours: float | None
    run_time_basis: str
    rate_per_hour: float | None
    probability: float | None
    note: str

    def as_dict(self) -> dict:
        history = self.history
        return {
            "by_policy": list(self.by_policy),
            "policy_summary": self.policy_summary,
            "tier": history.tier if history else None,
            "scope": history.scope if history else "",
            "preemptions": history.preemptions if history else None,
            "admitted_hours": None if history is None else round(history.admitted_hours, 3),
            "rate_per_hour": None if self.rate_per_hour is None else round(self.rate_per_hour, 6),
            "run_hours": None if self.run_hours is None else round(self.run_hours, 3),
            "run_time_basis": self.run_time_basis,
            "probability": None if self.probability is None else round(self.probability, 4),
            "note": self.note,
        }


# ----- who could preempt it, from the policy -------------------------------------------------


def who_could_preempt(
    objects: list[dict],
    cluster_queue: str,
    *,
    priority: int,
    higher_tier: bool,
    borrows: bool | None,
    borrowed_gpus: int = 0,
    fair_sharing: bool = False,
) -> tuple[str, ...] | None:
    """Sentences naming who could preempt a workload of ``priority`` admitted in
    ``cluster_queue`` (None: that queue is not in ``objects``, so nobody knows);
    ``higher_tier``: whether any tier outranks it; ``borrows``: whether its queue would
    use more than its own quota (None: not known yet, as for a job that would wait);
    ``fair_sharing``: Kueue runs fair sharing, which ignores ``borrowWithinCohort``."""
    queues = {o["metadata"]["name"]: o for o in objects if o.get("kind") == "ClusterQueue"}
    own = queues.get(cluster_queue)
    if own is None:
        return None
    threats = list(_within_queue(_preemption(own).get("withinClusterQueue"), higher_tier))
    if borrows is False:
        return tuple(threats)
    mates = _cohort_mates(objects, queues, cluster_queue)
    cohort = _from_cohort(
        mates, priority=priority, higher_tier=higher_tier, gpus=borrowed_gpus, fair=fair_sharing
    )
    if borrows is None:
        cohort = [f"if it borrows when admitted: {t}" for t in cohort]
    return (*threats, *cohort)


def policy_summary(
    objects: list[dict],
    cluster_queue: str,
    threats: tuple[str, ...] | None,
    *,
    borrows: bool | None,
) -> str:
    """``threats`` in one line, or why there are none."""
    if threats:
        return "; ".join(threats)
    queues = [o for o in objects if o.get("kind") == "ClusterQueue"]
    own = next((q for q in queues if q["metadata"]["name"] == cluster_queue), None)
    if threats is None or own is None:
        return f"not known: queue {cluster_queue} is missing in the cluster"
    within = _preemption(own).get("withinClusterQueue") or NEVER
    if within == NEVER:
        inside = "its queue preempts nothing within itself (withinClusterQueue: Never)"
    else:
        inside = "its tier is the highest"
    outside = "it borrows nothing" if borrows is False else "no queue of its cohort may reclaim"
    return f"none: {inside} and {outside}"


def _preemption(cluster_queue: dict) -> dict:
    return (cluster_queue.get("spec") or {}).get("preemption") or {}


def _within_queue(policy: str | None, higher_tier: bool) -> list[str]:
    if policy == LOWER and higher_tier:
        return ["higher-priority workloads of the same queue (withinClusterQueue: LowerPriority)"]
    if policy == LOWER_OR_NEWER_EQUAL:
        who = "higher-priority workloads of the same queue, and " if higher_tier else ""
        return [
            f"{who}equal-priority workloads of the same queue queued before it "
            "(withinClusterQueue: LowerOrNewerEqualPriority)"
        ]
    return []


def _cohort_mates(objects: list[dict], queues: dict[str, dict], name: str) -> list[dict]:
    """The other ClusterQueues of ``name``'s cohort tree (same root cohort)."""
    parents = {
        o["metadata"]["name"]: (o.get("spec") or {}).get("parentName") or ""
        for o in objects
        if o.get("kind") == "Cohort"
    }
    root = _root(parents, (queues[name].get("spec") or {}).get("cohortName") or "")
    if not root:
        return []
    return [
        q
        for other, q in sorted(queues.items())
        if other != name and _root(parents, (q.get("spec") or {}).get("cohortName") or "") == root
    ]


def _root(parents: dict[str, str], cohort: str) -> str:
    seen = set()
    while parents.get(cohort) and cohort not in seen:
        seen.add(cohort)
        cohort = parents[cohort]
    return cohort


def _from_cohort(
    mates: list[dict], *, priority: int, higher_tier: bool, gpus: int, fair: bool
) -> list[str]:
    what = f"the {gpus} GPUs it would borrow" if gpus else "what it would borrow"
    by_policy: dict[str, list[str]] = {ANY: [], LOWER: [], "borrowing": []}
    for queue in mates:
        preemption = _preemption(queue)
        reclaim = preemption.get("reclaimWithinCohort") or NEVER
        if reclaim in by_policy and (reclaim == ANY or higher_tier):
            by_policy[reclaim].append(queue["metadata"]["name"])
        if not fair and _may_preempt_while_borrowing(preemption, priority, higher_tier):
            by_policy["borrowing"].append(queue["metadata"]["name"])
    threats = []
    if names := by_policy[ANY]:
        threats.append(
            f"{_queues(names)} reclaiming {what}, at any priority (reclaimWithinCohort: Any)"
        )
    if names := by_policy[LOWER]:
        threats.append(
            f"higher-priority workloads of {_queues(names)} reclaiming {what} "
            "(reclaimWithinCohort: LowerPriority)"
        )
    if names := by_policy["borrowing"]:
        threats.append(
            f"higher-priority workloads of {_queues(names)} borrowing themselves "
            "(borrowWithinCohort: LowerPriority)"
        )
    return threats


def _may_preempt_while_borrowing(preemption: dict, priority: int, higher_tier: bool) -> bool:
    borrow = preemption.get("borrowWithinCohort") or {}
    if borrow.get("policy") != LOWER or not higher_tier:
        return False
    threshold = borrow.get("maxPriorityThreshold")
    return threshold is None or priority <= int(threshold)


def _queues(names: list[str]) -> str:
    return f"queue {names[0]}" if len(names) == 1 else f"queues {', '.join(names)}"


def borrowed_gpus(status: dict, flavors: set[str], gpu_resource: str) -> int:
    """GPUs of ``flavors`` a ClusterQueue's status shows above its own quota."""
    return sum(
        int(quantity_value(resource.get("borrowed") or "0"))
        for row in status.get("flavorsReservation") or ()
        if row["name"] in flavors
        for resource in row.get("resources") or ()
        if resource["name"] == gpu_resource
    )


# ----- how often, from history ------------------------------------------------------------------


def admitted_seconds(
    steps: list[tuple[datetime, str]], *, open_until: datetime, since: datetime, now: datetime
) -> float:
    """Seconds within [``since``, ``now``] a job spent admitted, from its time-ordered
    (time, JobEvent kind) steps; a run still open ends at ``open_until``."""
    total, opened = 0.0, None
    for at, kind in steps:
        if kind == OPENS and opened is None:
            opened = at
        elif kind in CLOSES and opened is not None:
            total += _overlap(opened, at, since, now)
            opened = None
    if opened is not None:
        total += _overlap(opened, open_until, since, now)
    return total


def _overlap(start: datetime, end: datetime, since: datetime, now: datetime) -> float:
    return max(0.0, (min(end, now) - max(start, since)).total_seconds())


def preemption_risk(
    threats: tuple[str, ...] | None,
    summary: str,
    history: TierHistory | None,
    *,
    run_hours: float | None,
    run_time_basis: str,
) -> PreemptionRisk:
    """The risk over a run of ``run_hours``: nobody may preempt it → probability 0; no
    admitted hours recorded for its tier, or no policy known (``threats`` None) → no
    probability, with the reason."""
    rate = None
    if history is not None and history.admitted_hours > 0:
        rate = history.preemptions / history.admitted_hours
    if threats is None:
        probability, note = None, "its queue's preemption policy is not known"
    elif not threats:
        probability, note = 0.0, "its queue's preemption policy lets nothing preempt it"
    elif rate is None:
        probability = None
        tier = history.tier if history else "its tier"
        note = f"no run of {tier} was recorded as admitted in the history window, so no rate"
    elif run_hours is None:
        probability, note = None, "no expected run time, so no probability over it"
    else:
        probability = 1 - math.exp(-rate * run_hours)
        note = "1 − exp(−rate × expected run hours): at least one preemption at the tier's rate"
    return PreemptionRisk(
        threats or (), summary, history, run_hours, run_time_basis, rate, probability, note
    )
