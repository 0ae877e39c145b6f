"""What the cluster says about a notebook or job, as pure functions over plain dicts.

Inputs are the objects ``cluster.observe`` read (Workloads, pods, Jobs,
ClusterQueues). Outputs are states, plain-language pending reasons and admission
history entries; services write them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from apps.jobs.choices import InferenceState, JobEventKind, JobState, NotebookState
from apps.queues.quantity import format_units, observed_units
from informer.objects import (
    cluster_queue,
    condition,
    meta,
    owner_key,
    pod_phase,
    pod_ready,
    pods_of,
    preemptor_uid,
    queue_name,
    transition_time,
)
from informer.workload import (
    Transition,
    ended_by_preemption,
    is_admitted,
    is_finished,
    is_reserved,
    last_checkpoint,
    lost_since,
    pending,
    transitions,
)

__all__ = [
    "condition",
    "last_checkpoint",
    "pods_of",
]

# How a pending reason starts when Kueue admitted the workload but no node takes the pod
# (the spawn progress reads it to show "pod scheduled" as the blocked step).
ADMITTED_UNSCHEDULABLE = "admitted but unschedulable"
_UNSCHEDULABLE_PREFIX = re.compile(r"^0/\d+ nodes are available: ")
# kube-scheduler: "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: …"
_INSUFFICIENT = re.compile(r"\b\d+ Insufficient (\S+?)[.,]?(?:\s|$)")


def index_workloads(workloads: list[dict]) -> dict[tuple[str, str, str], dict]:
    return {owner_key(w): w for w in workloads}


def unschedulable_message(pods: list[dict]) -> str:
    for pod in pods:
        cond = condition(pod, "PodScheduled")
        if cond and cond.get("status") == "False" and cond.get("reason") == "Unschedulable":
            return _UNSCHEDULABLE_PREFIX.sub("", cond.get("message") or "").rstrip(".")
    return ""


def plain_unschedulable(message: str, need: Need) -> str:
    """The scheduler's verdict in words: kube-scheduler's "N Insufficient <resource>"
    becomes "no node has <amount> free <resource>"; other messages stay as they are."""
    match = _INSUFFICIENT.search(message)
    if match is None:
        return message
    resource = match.group(1)
    amount = need.amount if resource == need.resource else "enough"
    return f"no node has {amount} free {resource}"


# ----- notebooks ----------------------------------------------------------------------


@dataclass(frozen=True)
class Phase:
    state: str
    reason: str = ""


def notebook_phase(workload: dict | None, pods: list[dict]) -> Phase:
    """Queued until Kueue reserves quota, Starting until the pod is ready, then Ready."""
    if workload is not None and is_finished(workload):
        cond = condition(workload, "Finished")
        return Phase(NotebookState.FAILED, cond.get("message") or "the workload finished")
    if any(pod_phase(p) == "Failed" for p in pods):
        return Phase(NotebookState.FAILED, "the notebook pod failed")
    if not is_reserved(workload):
        return Phase(NotebookState.QUEUED)
    if pods and all(pod_ready(p) for p in pods):
        return Phase(NotebookState.READY)
    return Phase(NotebookState.STARTING)


def ready_since(pods: list[dict]) -> datetime | None:
    """When the last of the pods became ready (their Ready condition's transition time)."""
    times = [_at(condition(p, "Ready") or {}) for p in pods if pod_ready(p)]
    return max(times) if times and None not in times else None


def inference_phase(workload: dict | None, pods: list[dict], replicas: int) -> Phase:
    """Queued until Kueue admits the whole pod group, Serving once every replica is ready."""
    if any(pod_phase(p) == "Failed" for p in pods):
        return Phase(InferenceState.STARTING, "a replica failed; its StatefulSet restarts it")
    if not is_admitted(workload):
        return Phase(InferenceState.QUEUED)
    ready = [p for p in pods if pod_ready(p)]
    if len(ready) >= replicas:
        return Phase(InferenceState.SERVING)
    return Phase(InferenceState.STARTING)


# ----- jobs -----------------------------------------------------------------------------


def job_phase(job: dict | None, workload: dict | None, pods: list[dict]) -> Phase:
    if job is not None:
        for kind, state in (("Complete", JobState.SUCCEEDED), ("Failed", JobState.FAILED)):
            cond = condition(job, kind)
            if cond and cond.get("status") == "True":
                return Phase(state, cond.get("message") or "")
    # Kueue unsuspends the Job once admitted; a reservation awaiting admission checks waits.
    if not is_admitted(workload):
        return Phase(JobState.QUEUED)
    running = [p for p in pods if pod_phase(p) == "Running"]
    if running and not (job or {}).get("spec", {}).get("suspend", False):
        return Phase(JobState.RUNNING)
    return Phase(JobState.ADMITTED)


# ----- headroom and pending reasons -------------------------------------------------------


class _Unreadable(Exception):
    """A quantity of a ClusterQueue could not be read (already logged and counted)."""


def _q(value, cq: dict, field: str) -> Decimal:
    where = f"ClusterQueue {meta(cq).get('name', '')} {field}"
    amount = observed_units(value, where=where, reader="job_status")
    if amount is None:
        raise _Unreadable(where)
    return amount


def _quota(cq: dict, flavor: str, resource: str) -> dict | None:
    for group in (cq.get("spec") or {}).get("resourceGroups") or ():
        for fl in group.get("flavors") or ():
            if fl.get("name") != flavor:
                continue
            for res in fl.get("resources") or ():
                if res.get("name") == resource:
                    return res
    return None


def _usage(cq: dict, flavor: str, resource: str) -> tuple[Decimal, Decimal]:
    """(total, borrowed) admitted usage from ``status.flavorsUsage``."""
    for fl in (cq.get("status") or {}).get("flavorsUsage") or ():
        if fl.get("name") != flavor:
            continue
        for res in fl.get("resources") or ():
            if res.get("name") == resource:
                field = f"status.flavorsUsage {flavor}/{resource}"
                total = _q(res.get("total"), cq, f"{field} total")
                return total, _q(res.get("borrowed"), cq, f"{field} borrowed")
    return Decimal(0), Decimal(0)


def _cohort(cq: dict) -> str:
    spec = cq.get("spec") or {}
    return spec.get("cohortName") or spec.get("cohort") or ""


@dataclass(frozen=True)
class Headroom:
    free: Decimal
    cohort_can_lend: Decimal


def headroom(cq: dict, all_cqs: list[dict], flavor: str, resource: str) -> Headroom | None:
    """Unused nominal quota of ``cq``, and what the rest of its cohort could lend it now.

    A member lends what it does not use of its lendable part (``lendingLimit``, or all
    of its nominal quota when unset); whatever the members already borrow is taken
    off, and the result is capped by ``cq``'s own remaining ``borrowingLimit``.
    None when a quantity it needs cannot be read (logged and counted), not a guess.
    """
    try:
        return _headroom(cq, all_cqs, flavor, resource)
    except _Unreadable:
        return None


def _headroom(cq: dict, all_cqs: list[dict], flavor: str, resource: str) -> Headroom:
    spec = f"spec {flavor}/{resource}"
    own = _quota(cq, flavor, resource) or {}
    used, borrowed = _usage(cq, flavor, resource)
    free = max(Decimal(0), _q(own.get("nominalQuota"), cq, f"{spec} nominalQuota") - used)
    cohort = _cohort(cq)
    if not cohort:
        return Headroom(free, Decimal(0))
    members = [c for c in all_cqs if _cohort(c) == cohort]
    spare, borrowed_total = Decimal(0), Decimal(0)
    for member in members:
        quota = _quota(member, flavor, resource) or {}
        m_used, m_borrowed = _usage(member, flavor, resource)
        borrowed_total += m_borrowed
        if meta(member).get("name") == meta(cq).get("name"):
            continue
        nominal = _q(quota.get("nominalQuota"), member, f"{spec} nominalQuota")
        lending = quota.get("lendingLimit")
        lendable = _q(lending, member, f"{spec} lendingLimit") if lending else nominal
        private = nominal - lendable
        spare += max(Decimal(0), lendable - max(Decimal(0), min(m_used, nominal) - private))
    can_lend = max(Decimal(0), spare - borrowed_total)
    if own.get("borrowingLimit") not in (None, ""):
        limit = _q(own["borrowingLimit"], cq, f"{spec} borrowingLimit")
        can_lend = min(can_lend, max(Decimal(0), limit - borrowed))
    return Headroom(free, can_lend)


@dataclass(frozen=True)
class Need:
    flavor: str
    resource: str
    amount: int


def pending_reason(
    workload: dict | None,
    pods: list[dict],
    cluster_queues: list[dict],
    need: Need,
) -> str:
    """Why it is not running yet, in words a scientist can act on."""
    if workload is None:
        return "waiting for Kueue to create the workload"
    waiting = pending(workload)
    if waiting is None:
        message = plain_unschedulable(unschedulable_message(pods), need)
        return f"{ADMITTED_UNSCHEDULABLE}: {message}" if message else ""
    reason = waiting.reason
    cq_name = _admission_cq(workload, cluster_queues)
    cq = next((c for c in cluster_queues if meta(c).get("name") == cq_name), None)
    if reason in ("", "WaitingForQuota", "Pending") and cq is not None:
        room = headroom(cq, cluster_queues, need.flavor, need.resource)
        wanted = f"waiting for quota in {cq_name}: needs {need.amount} {need.resource} on "
        if room is None:
            unknown = "free quota unknown: the queue reports a quantity the portal cannot read"
            return f"{wanted}{need.flavor} ({unknown})"
        return (
            f"{wanted}{need.flavor}, {format_units(room.free)} free, cohort can lend "
            f"{format_units(room.cohort_can_lend)}"
        )
    if reason == "WaitingForPreemptedWorkloads":
        return "waiting for preempted workloads to release their GPUs"
    if reason:
        return f"{reason}: {waiting.message}".strip()
    return "waiting for Kueue to consider the workload"


def _admission_cq(workload: dict, cluster_queues: list[dict]) -> str:
    """The ClusterQueue behind the workload's LocalQueue (same name by our convention)."""
    return cluster_queue(workload) or queue_name(workload)


# ----- admission history ----------------------------------------------------------------


@dataclass(frozen=True)
class HistoryEntry:
    key: str
    kind: str
    at: datetime
    reason: str = ""
    message: str = ""
    preemptor: str = ""


def _at(cond: dict) -> datetime | None:
    return transition_time(cond)


def history(workload: dict, workloads_by_uid: dict[str, dict]) -> list[HistoryEntry]:
    """The transitions visible on the Workload now (conditions keep only the latest).

    Keyed by the API server's own timestamps, so each version adds only what is new.
    """
    seen = {fact.type: fact for fact in transitions(workload)}
    entries = []
    # Admitted, not just quota reserved (admission checks may still be pending): the
    # time the report's runs start and its waits end, and lost work counts from.
    if admitted := seen.get(Transition.ADMITTED):
        key = f"admitted:{admitted.stamp}"
        entries.append(
            HistoryEntry(key, JobEventKind.ADMITTED, admitted.at, "Admitted", admitted.message)
        )
    if evicted := seen.get(Transition.EVICTED):
        entries.append(_eviction(evicted, seen.get(Transition.PREEMPTED), workloads_by_uid))
    if finished := seen.get(Transition.FINISHED):
        entries.append(
            HistoryEntry(
                f"finished:{finished.stamp}",
                JobEventKind.FINISHED,
                finished.at,
                finished.reason,
                finished.message,
            )
        )
    return entries


def _eviction(evicted, preempted, workloads_by_uid: dict[str, dict]) -> HistoryEntry:
    """An eviction, told as a preemption when Kueue says one caused it."""
    if preempted is None or not ended_by_preemption(evicted.at, preempted.at):
        return HistoryEntry(
            f"evicted:{evicted.stamp}",
            JobEventKind.EVICTED,
            evicted.at,
            evicted.reason,
            evicted.message,
        )
    return HistoryEntry(
        f"preempted:{evicted.stamp}",
        JobEventKind.PREEMPTED,
        evicted.at,
        preempted.reason,
        preempted.message,
        preemptor_of(preempted.message, workloads_by_uid),
    )


def preemptor_of(message: str, workloads_by_uid: dict[str, dict]) -> str:
    """``namespace/owner`` of the workload named in a preemption message, if still known."""
    uid = preemptor_uid(message)
    workload = workloads_by_uid.get(uid) if uid else None
    if workload is None:
        return ""
    namespace, _kind, name = owner_key(workload)
    return f"{namespace}/{name}"


@dataclass(frozen=True)
class WorkLost:
    seconds: int
    since: str  # "checkpoint", or "admission" when none was reported within the run


def work_lost(
    preempted_at: datetime, admitted_at: datetime | None, checkpoint: datetime | None
) -> WorkLost | None:
    """Work a preemption threw away, by the one lost-work rule (``lost_since``): since
    the last checkpoint of that run, or since its admission (None when that is unknown)."""
    if admitted_at is None or preempted_at < admitted_at:
        return None
    since, known = lost_since(admitted_at, preempted_at, checkpoint)
    seconds = int((preempted_at - since).total_seconds())
    return WorkLost(seconds, "checkpoint" if known else "admission")
