"""Writing admission history: the recorder's only way into the database."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from apps.queues.models import TeamNamespace
from apps.reports import extract
from apps.reports.choices import Outcome
from apps.reports.models import WorkloadRecord, WorkloadTransition
from apps.reports.services import level_rollup
from informer import objects, workload
from informer.kinds import JOB_LABEL
from informer.objects import parse_time
from informer.workload import Transition, TransitionFact

# Where a checkpoint transition came from, when not from the Workload's annotation.
TERMINATION_MESSAGE = {"source": "termination message"}
# Kubernetes event types the recorder handles; others (BOOKMARK, SYNCED) carry no workload.
OBJECT_EVENTS = ("ADDED", "MODIFIED", "DELETED")


@transaction.atomic
def record_workload_events(
    events: list[tuple[str, dict]],
    *,
    at: datetime | None = None,
    rebuilt_since: datetime | None = None,
) -> int:
    """Store the transitions a batch of watch events shows; returns rows added.

    Idempotent: transitions are unique per (workload, type, time), so replays and
    relists add nothing. ``at`` stamps deletions (default: now). A relist after a
    history gap passes the gap's start as ``rebuilt_since``: new rows from then on
    are marked rebuilt (learned afterwards, not seen live).
    """
    teams = dict(TeamNamespace.objects.values_list("name", "team_id"))
    added = 0
    for kind, obj in events:
        if kind in OBJECT_EVENTS and (obj.get("metadata") or {}).get("uid"):
            added += _record_one(kind, obj, teams, at or timezone.now(), rebuilt_since)
    return added


def _record_one(
    kind: str, obj: dict, teams: dict[str, int], at: datetime, rebuilt_since: datetime | None
) -> int:
    facts = extract.workload_facts(obj)
    record = _upsert_record(facts, obj, teams)
    steps = workload.transitions(obj)
    if kind == "DELETED" and record.outcome not in Outcome.terminal_values():
        stamp = parse_time((obj.get("metadata") or {}).get("deletionTimestamp")) or at
        steps.append(TransitionFact(Transition.DELETED, stamp))
    added = _insert(record, steps, rebuilt_since)
    _refresh_summary(record, steps, obj)
    return added


@transaction.atomic
def record_reported_checkpoints(pods: list[dict]) -> int:
    """Store the checkpoints batch pods report in their termination messages (the
    checkpoint contract, docs/checkpoints.md) as their Workloads' checkpoint transitions;
    returns rows added. The pods of a Job belong to its newest recorded Workload."""
    added = 0
    for pod in pods:
        at = workload.reported_by([pod])
        job = objects.labels(pod).get(JOB_LABEL)
        if at is None or not job:
            continue
        record = (
            WorkloadRecord.objects.filter(
                namespace=objects.meta(pod).get("namespace", ""), owner_kind="Job", owner_name=job
            )
            .order_by("-created_at")
            .first()
        )
        if record is not None:
            steps = [TransitionFact(Transition.CHECKPOINT, at, detail=TERMINATION_MESSAGE)]
            added += _insert(record, steps, None)
            if changes := _times(record, steps):
                WorkloadRecord.objects.filter(pk=record.pk).update(**changes)
    return added


def _upsert_record(facts: extract.WorkloadFacts, obj: dict, teams: dict[str, int]):
    team_id = teams.get(facts.namespace)
    defaults = {
        "namespace": facts.namespace,
        "name": facts.name,
        "owner_kind": facts.owner_kind,
        "owner_name": facts.owner_name,
        "team_id": team_id,
        "local_queue": facts.local_queue,
        "priority": facts.priority,
        "priority_class": facts.priority_class,
        "pod_count": facts.pod_count,
        "gpus": facts.gpus,
        "node_selector": facts.node_selector,
        "size_class": extract.size_class(facts.gpus),
        "created_at": facts.created_at,
    }
    record, created = WorkloadRecord.objects.get_or_create(uid=facts.uid, defaults=defaults)
    if created and team_id:
        record.team_slug = record.team.slug
        record.save(update_fields=["team_slug"])
    return record


def _insert(
    record: WorkloadRecord, steps: list[TransitionFact], rebuilt_since: datetime | None
) -> int:
    rows = [
        WorkloadTransition(
            workload=record, type=s.type, at=s.at, reason=s.reason[:100], message=s.message[:1000],
            detail=s.detail, rebuilt=rebuilt_since is not None and s.at >= rebuilt_since,
        )
        for s in steps
    ]  # fmt: skip
    before = WorkloadTransition.objects.filter(workload=record).count()
    levels = level_rollup.changes_of([record.pk])
    WorkloadTransition.objects.bulk_create(rows, ignore_conflicts=True)
    added = WorkloadTransition.objects.filter(workload=record).count() - before
    if added:
        level_rollup.apply_since(levels, [record.pk])
    return added


def _refresh_summary(record: WorkloadRecord, steps, obj: dict) -> None:
    """Keep the summary row in step with what the history now says."""
    changes: dict = {}
    flavors = objects.gpus_per_flavor(obj)
    if flavors and flavors != record.gpus_by_flavor:
        changes["gpus_by_flavor"] = flavors
    queue = objects.cluster_queue(obj)
    if queue and queue != record.cluster_queue:
        changes["cluster_queue"] = queue
    changes.update(_times(record, steps))
    outcome = _outcome(record, steps)
    if outcome != record.outcome:
        changes["outcome"] = outcome
    if changes:
        WorkloadRecord.objects.filter(pk=record.pk).update(**changes)


def _times(record: WorkloadRecord, steps) -> dict:
    changes = {}
    admitted = [s.at for s in steps if s.type == Transition.ADMITTED]
    if admitted and (record.first_admitted_at is None or min(admitted) < record.first_admitted_at):
        changes["first_admitted_at"] = min(admitted)
    ends = [s.at for s in steps if s.type in (Transition.FINISHED, Transition.DELETED)]
    if ends and record.finished_at is None:
        changes["finished_at"] = min(ends)
    checkpoints = [s.at for s in steps if s.type == Transition.CHECKPOINT]
    if checkpoints and (
        record.last_checkpoint_at is None or max(checkpoints) > record.last_checkpoint_at
    ):
        changes["last_checkpoint_at"] = max(checkpoints)
    return changes


def _outcome(record: WorkloadRecord, steps) -> str:
    if record.outcome in (Outcome.SUCCEEDED, Outcome.FAILED):
        return record.outcome
    current = extract.outcome_of([s for s in steps if s.type != Transition.DELETED])
    if current in (Outcome.SUCCEEDED, Outcome.FAILED):
        return current
    if any(s.type == Transition.DELETED for s in steps) or record.outcome == Outcome.DELETED:
        return Outcome.DELETED
    return current


@transaction.atomic
def mark_vanished(present_uids: set[str], *, at: datetime | None = None) -> int:
    """After a relist: workloads we think alive but the cluster no longer has were deleted
    while we were not watching. Returns how many."""
    at = at or timezone.now()
    gone = WorkloadRecord.objects.filter(outcome__in=Outcome.active_values()).exclude(
        uid__in=present_uids
    )
    count = 0
    for record in gone.select_for_update().order_by("pk"):
        levels = level_rollup.changes_of([record.pk])
        WorkloadTransition.objects.bulk_create(
            [
                WorkloadTransition(
                    workload=record, type=Transition.DELETED, at=at, reason="Vanished"
                )
            ],
            ignore_conflicts=True,
        )
        level_rollup.apply_since(levels, [record.pk])
        WorkloadRecord.objects.filter(pk=record.pk).update(outcome=Outcome.DELETED, finished_at=at)
        count += 1
    return count
