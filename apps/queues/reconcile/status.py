"""Read-side summaries of sync status for pages (no cluster access)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from apps.queues.choices import SyncState
from apps.queues.models import Queue, SyncObject, SyncRun

OUT_OF_SYNC = (SyncState.ERROR, SyncState.PENDING)
# Worst first: a queue shows the worst state among its objects.
SEVERITY = (SyncState.ERROR, SyncState.PENDING, SyncState.DRIFT_REPAIRED, SyncState.IN_SYNC)


@dataclass(frozen=True)
class QueueSync:
    state: str
    label: str
    objects: list[SyncObject]
    last_run: SyncRun | None

    @property
    def cluster_error(self) -> str:
        return self.last_run.error if self.last_run else ""

    @property
    def last_synced_at(self) -> datetime | None:
        """When the sync last changed what it knows of the queue's objects."""
        return max((row.updated_at for row in self.objects), default=None)


def last_updated(queue: Queue, sync: QueueSync | None) -> datetime:
    """The later of the queue's last policy edit and the last sync of its objects."""
    synced = sync.last_synced_at if sync else None
    return queue.updated_at if synced is None else max(queue.updated_at, synced)


def worst(states: list[str]) -> str:
    return min(states, key=SEVERITY.index) if states else SyncState.PENDING


def state_for(queue: Queue, rows: list[SyncObject]) -> str:
    """Pending until every object of the queue was written from its current version."""
    states = [row.state for row in rows]
    if not rows or any(row.policy_version != queue.version for row in rows):
        states.append(SyncState.PENDING)
    return worst(states)


def queue_sync(queue: Queue) -> QueueSync | None:
    if not settings.QM_CLUSTER_SYNC:
        return None
    rows = list(queue.sync_objects.order_by("kind", "namespace"))
    state = state_for(queue, rows)
    return QueueSync(state, SyncState(state).label, rows, SyncRun.objects.first())


def overview_states(queues: list[Queue]) -> dict[int, tuple[str, str]]:
    """queue pk → (state, label) for the overview column, in one query."""
    if not settings.QM_CLUSTER_SYNC:
        return {}
    rows: dict[int, list[SyncObject]] = {}
    for row in SyncObject.objects.filter(queue__in=queues):
        rows.setdefault(row.queue_id, []).append(row)
    states = {q.pk: state_for(q, rows.get(q.pk, [])) for q in queues}
    return {pk: (state, SyncState(state).label) for pk, state in states.items()}


def out_of_sync_since() -> Iterator[tuple[Queue, str, datetime, str]]:
    """(queue, state, since when, first problem) for every queue not in sync.

    "Since" is the oldest change of an object that is not in sync, or the policy
    edit the cluster has not caught up with yet (the queue's ``updated_at``).
    """
    rows: dict[int, list[SyncObject]] = {}
    for row in SyncObject.objects.exclude(queue=None):
        rows.setdefault(row.queue_id, []).append(row)
    for queue in Queue.objects.only("pk", "name", "team_id", "version", "updated_at"):
        mine = rows.get(queue.pk, [])
        state = state_for(queue, mine)
        if state not in OUT_OF_SYNC:
            continue  # drift that was repaired is in sync again
        behind = [r for r in mine if r.state in OUT_OF_SYNC]
        starts = [r.updated_at for r in behind]
        if not mine or any(r.policy_version != queue.version for r in mine):
            starts.append(queue.updated_at)
        message = next((r.message for r in behind if r.message), "")
        yield queue, state, min(starts), message
