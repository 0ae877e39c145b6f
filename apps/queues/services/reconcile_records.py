"""Recording what the reconciler did: sync status rows, drift audit, run history.

The reconciler (``apps.queues.reconcile.run``) calls ``record_reconcile`` once per
run with every outcome. Rows are only written when something about them changed,
so a no-op run costs one ``SyncRun`` insert and no other write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from apps.queues.choices import SyncState
from apps.queues.models import ForeignClusterQueue, Queue, SyncObject, SyncRun
from apps.queues.reconcile import plan as p
from apps.queues.reconcile.apply import Outcome
from core.audit import AuditAction, record_audit

KEEP_RUNS = 200
ROW_FIELDS = [
    "queue",
    "state",
    "message",
    "applied",
    "policy_version",
    "last_applied_at",
    "observed_generation",
    "resource_version",
    "updated_at",
]
DRIFT_REASON = "out-of-band change in the cluster reverted to the portal's policy"


@dataclass
class _Batch:
    """Rows to insert, update and delete, collected before one bulk write each."""

    rows: dict[p.Key, SyncObject]
    queues: dict[str, Queue]
    now: datetime
    version: str
    created: list[SyncObject] = field(default_factory=list)
    changed: list[SyncObject] = field(default_factory=list)
    deleted: list[int] = field(default_factory=list)
    drifted: list[tuple[SyncObject, Outcome]] = field(default_factory=list)


@transaction.atomic
def record_reconcile(
    outcomes: list[Outcome],
    *,
    version: str,
    trigger: str,
    started_at: datetime,
    summary: dict,
    fingerprint: str = "",
) -> SyncRun:
    """Bring the sync rows in line with a run's outcomes and audit repaired drift.

    ``fingerprint`` is given by full runs: it is kept only if the run had no errors.
    """
    batch = _Batch(
        rows=_rows_for(outcomes),
        queues={q.name: q for q in Queue.objects.select_related("team")},
        now=timezone.now(),
        version=version,
    )
    for outcome in outcomes:
        _record_one(batch, outcome)
    SyncObject.objects.bulk_create(batch.created)
    SyncObject.objects.bulk_update(batch.changed, ROW_FIELDS, batch_size=500)
    SyncObject.objects.filter(pk__in=batch.deleted).delete()
    for row, outcome in batch.drifted:
        _audit_drift(row, outcome)
    clean = fingerprint if not summary.get("errors") else ""
    return _record_run(trigger, started_at, summary, fingerprint=clean)


def _rows_for(outcomes: list[Outcome]) -> dict[p.Key, SyncObject]:
    # Locked so two runs (only possible if the run lock expired) can't interleave.
    rows = SyncObject.objects.select_for_update()
    if len(outcomes) < 200:  # the fast path touches a handful of rows
        rows = rows.filter(name__in={o.action.name for o in outcomes})
    return {row.key: row for row in rows}


@transaction.atomic
def record_foreign_cluster_queues(found: list[dict], *, seen_at: datetime) -> None:
    """Keep exactly the unmanaged ClusterQueues a full run found (``reconcile.foreign``).

    Only a full run sees every ClusterQueue, so only it calls this; one that is gone
    from the cluster stops counting against capacity.
    """
    ForeignClusterQueue.objects.exclude(name__in=[q["name"] for q in found]).delete()
    for queue in found:
        ForeignClusterQueue.objects.update_or_create(
            name=queue["name"],
            defaults={"cohort": queue["cohort"], "quotas": queue["quotas"], "seen_at": seen_at},
        )


@transaction.atomic
def record_reconcile_failure(*, trigger: str, started_at: datetime, error: str) -> SyncRun:
    """A run that could not even read the cluster (unreachable, no access, no config)."""
    return _record_run(trigger, started_at, {}, error=error)


def _record_run(
    trigger: str, started_at: datetime, summary: dict, error: str = "", fingerprint: str = ""
) -> SyncRun:
    run = SyncRun.objects.create(
        started_at=started_at,
        finished_at=timezone.now(),
        trigger=trigger,
        summary=summary,
        error=error,
        catalog_fingerprint=fingerprint,
    )
    stale = SyncRun.objects.values_list("pk", flat=True)[KEEP_RUNS:]
    SyncRun.objects.filter(pk__in=list(stale)).delete()
    return run


def _record_one(batch: _Batch, outcome: Outcome) -> None:
    action = outcome.action
    row = batch.rows.get(action.key)
    if _gone(outcome):
        if row is not None:
            batch.deleted.append(row.pk)
        return
    fresh = row is None
    row = row or SyncObject(kind=action.kind, namespace=action.namespace, name=action.name)
    before = _fingerprint(row)
    _update_row(batch, row, outcome)
    if fresh:
        batch.created.append(row)
    elif _fingerprint(row) != before:
        row.updated_at = batch.now
        batch.changed.append(row)
    if outcome.ok and action.drift:
        batch.drifted.append((row, outcome))


def _gone(outcome: Outcome) -> bool:
    """Deleted, or a namespace we let go of: nothing left to track."""
    action = outcome.action
    released = action.verb == p.UPDATE and action.desired is None
    return outcome.ok and (action.verb == p.DELETE or released)


def _fingerprint(row: SyncObject) -> tuple:
    return tuple(getattr(row, name if name != "queue" else "queue_id") for name in ROW_FIELDS)


def _update_row(batch: _Batch, row: SyncObject, outcome: Outcome) -> None:
    action = outcome.action
    queue = batch.queues.get(action.name) if action.kind in p.HOLDABLE else None
    row.queue = queue
    row.updated_at = row.updated_at or batch.now
    if not outcome.ok:
        row.state, row.message = SyncState.ERROR, outcome.error.describe()
        return
    if action.verb in (p.BLOCKED, p.HOLD):
        state = SyncState.ERROR if action.verb == p.BLOCKED else SyncState.PENDING
        row.state, row.message = state, action.message
        _observed(row, outcome.result or action.observed)
        return
    _in_sync(batch, row, outcome, queue)


def _in_sync(batch: _Batch, row: SyncObject, outcome: Outcome, queue: Queue | None) -> None:
    action = outcome.action
    if action.verb == p.UNCHANGED:
        if row.state != SyncState.DRIFT_REPAIRED:
            row.state, row.message = SyncState.IN_SYNC, ""
    elif action.drift:
        row.state, row.message = SyncState.DRIFT_REPAIRED, _drift_message(action, batch.now)
    else:
        row.state, row.message = SyncState.IN_SYNC, ""
    if action.verb != p.UNCHANGED or row.applied is None:
        row.applied = p.applied_fields(action.desired, batch.version)
        row.last_applied_at = batch.now if action.verb != p.UNCHANGED else row.last_applied_at
    row.policy_version = queue.version if queue else None
    _observed(row, outcome.result or action.observed)


def _observed(row: SyncObject, obj: dict | None) -> None:
    meta = (obj or {}).get("metadata") or {}
    generation = meta.get("generation")
    # resourceVersion moves with every status update; only follow it when the
    # spec moved too, so busy queues do not rewrite their row every run.
    if generation != row.observed_generation or not row.resource_version:
        row.observed_generation = generation
        row.resource_version = meta.get("resourceVersion") or ""


def _drift_message(action: p.Action, now: datetime) -> str:
    fields = ", ".join(change.field for change in action.drift)
    return f"{now:%Y-%m-%d %H:%M:%S} UTC: reverted out-of-band change to {fields}"


def _audit_drift(row: SyncObject, outcome: Outcome) -> None:
    action = outcome.action
    where = f"{action.namespace}/{action.name}" if action.namespace else action.name
    changes = [
        {"field": f"{action.kind} {where} {c.field}", "before": c.cluster, "after": c.desired}
        for c in action.drift
    ]
    queue = row.queue
    record_audit(
        actor=None,
        action=AuditAction.DRIFT_REPAIRED,
        obj=queue or row,
        team=queue.team if queue else None,
        changes=changes,
        reason=DRIFT_REASON,
    )
