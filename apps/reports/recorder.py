"""The Workload history recorder: a bounded list + watch run, resumed from the DB.

Design: Celery beat starts ``record_workloads_task`` every
``QM_RECORDER_WATCH_SECONDS`` + 5 s. Each run takes a lease (so runs never
overlap), reads the saved resourceVersion, watches for that many seconds through
``portal.watching.ResumableWatch`` (which lists first when there is no cursor,
on 410 Gone, and every ``QM_RECORDER_RELIST_SECONDS``), writes each batch of
events through ``services.record_workload_events`` and then saves the cursor.
A crash between write and cursor save only means the next run replays a few
events, which the unique (workload, type, time) key turns into no-ops. Gaps
between runs are covered by the server's event history, and if that is gone, by
the relist (whose SYNCED set also reveals workloads deleted in the meantime).
"""

from __future__ import annotations

import os
import socket
import time
import uuid

from django.conf import settings
from django.utils import timezone

from apps.queues.reconcile.observe import WORKLOAD, ref
from apps.reports import services
from apps.reports.models import WatchCursor
from apps.reports.services.history import OBJECT_EVENTS, cursor
from portal.kube import KubeClient
from portal.watching import ResumableWatch

CURSOR = "workloads"
BATCH = 200


def run_recorder(*, seconds: float, kube: KubeClient | None = None) -> dict:
    """Record Workload transitions for ``seconds``; returns counters for the task result."""
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    if not services.acquire_lease(CURSOR, owner, seconds + 60):
        return {"skipped": "another recorder holds the lease"}
    client = kube or KubeClient()
    try:
        return _record(client, seconds)
    finally:
        services.release_lease(CURSOR, owner)
        if kube is None:
            client.close()


def _record(client: KubeClient, seconds: float) -> dict:
    watch = ResumableWatch(
        client,
        ref(WORKLOAD, settings.KUEUE_API_VERSION),
        resource_version=cursor(CURSOR).resource_version,
        deadline=time.monotonic() + seconds,
        relist_every=settings.QM_RECORDER_RELIST_SECONDS,
    )
    batch: list[tuple[str, dict]] = []
    stats = {"events": 0, "transitions": 0, "vanished": 0}
    for kind, obj in watch:
        if kind in OBJECT_EVENTS:
            batch.append((kind, obj))
            stats["events"] += 1
        listing = watch.resource_version == "" or kind == "SYNCED"
        if kind == "SYNCED":
            stats["transitions"] += _flush(batch, watch)
            stats["vanished"] += services.mark_vanished(obj["uids"])
            services.save_cursor(CURSOR, watch.resource_version, relisted=True)
        elif len(batch) >= BATCH or (batch and not listing) or kind == "BOOKMARK":
            stats["transitions"] += _flush(batch, watch)
    stats["transitions"] += _flush(batch, watch)
    return {**stats, "relists": watch.relists, "reconnects": watch.reconnects}


def _flush(batch: list[tuple[str, dict]], watch: ResumableWatch) -> int:
    added = services.record_workload_events(batch) if batch else 0
    services.save_cursor(CURSOR, watch.resource_version, events=len(batch))
    batch.clear()
    return added


def lag_seconds() -> float | None:
    """Seconds since the recorder last saved its cursor (None before its first run).

    Registered as ``qm_history_recorder_lag_seconds`` and read at scrape time: a
    recorder that stopped running, or runs without getting through, shows as a
    growing value whatever process answers the scrape.
    """
    saved = WatchCursor.objects.filter(name=CURSOR).values_list("updated_at", flat=True).first()
    return None if saved is None else (timezone.now() - saved).total_seconds()
