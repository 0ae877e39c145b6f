"""The queues' scrape-time gauges (``core.observability.collectors``), registered in
``QueuesConfig.ready``: sync state per queue and the last reconcile run."""

from __future__ import annotations

from collections import Counter

from django.conf import settings

from apps.queues.choices import SyncState
from apps.queues.models import Queue, SyncRun
from apps.queues.reconcile.status import overview_states
from core.observability.collectors import register_gauge


def queue_sync_states() -> dict[tuple[str, ...], float]:
    """Queues per sync state (every state present, zero included)."""
    counts: Counter[str] = Counter()
    if settings.QM_CLUSTER_SYNC:
        states = overview_states(list(Queue.objects.only("pk", "version")))
        counts.update(state for state, _ in states.values())
    return {(state,): counts.get(state, 0) for state in SyncState.values}


def last_reconcile() -> dict[tuple[str, ...], float] | None:
    """When the last run finished, and whether it could read the cluster."""
    run = SyncRun.objects.only("finished_at", "error").first()
    if run is None:
        return None
    return {("finished",): run.finished_at.timestamp(), ("failed",): 1.0 if run.error else 0.0}


def register_gauges() -> None:
    register_gauge(
        "qm_queue_sync_state",
        "Queues in each sync state (in_sync, pending, drift_repaired, error), read at scrape time.",
        queue_sync_states,
        labels=("state",),
    )
    register_gauge(
        "qm_reconcile_last_run",
        "The last reconcile run: finished = its end as a Unix time; failed = 1 if it could "
        "not read the cluster.",
        last_reconcile,
        labels=("field",),
    )
