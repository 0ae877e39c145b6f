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

A relist after a 410 only shows each Workload's latest conditions, so the time
from the last saved progress to that relist is stored as a ``HistoryGap``, and
what Kueue's Events on Workloads still show of it (admissions, evictions,
preemptions) is rebuilt; see ``services.record_history_gap`` and docs/operations.md.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from apps.reports import kueue_events, services
from apps.reports.choices import GapCause
from apps.reports.models import WatchCursor
from apps.reports.services.history import OBJECT_EVENTS, cursor
from informer.kinds import EVENT, workload_ref
from portal.kube import KubeClient, KubeError
from portal.watching import ResumableWatch

CURSOR = "workloads"
BATCH = 200
EVENTS = EVENT
log = logging.getLogger(__name__)


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
    saved = cursor(CURSOR)
    watch = ResumableWatch(
        client,
        workload_ref(),
        resource_version=saved.resource_version,
        deadline=time.monotonic() + seconds,
        relist_every=settings.QM_RECORDER_RELIST_SECONDS,
    )
    # The last time the history was known complete: where a gap would start.
    progress = saved.updated_at if saved.resource_version else None
    batch: list[tuple[str, dict]] = []
    stats = {"events": 0, "transitions": 0, "vanished": 0, "gaps": 0, "rebuilt": 0}
    for kind, obj in watch:
        if kind in OBJECT_EVENTS:
            batch.append((kind, obj))
            stats["events"] += 1
        listing = watch.resource_version == "" or kind == "SYNCED"
        since = progress if listing and watch.list_cause == "expired" else None
        if kind == "SYNCED":
            stats["transitions"] += _flush(batch, watch, since)
            stats["vanished"] += services.mark_vanished(obj["uids"])
            if since is not None:
                stats["gaps"] += 1
                stats["rebuilt"] += _rebuild(client, since)
            services.save_cursor(CURSOR, watch.resource_version, relisted=True)
            progress = timezone.now()
        elif len(batch) >= BATCH or (batch and not listing) or kind == "BOOKMARK":
            stats["transitions"] += _flush(batch, watch, since)
            progress = progress if since is not None else timezone.now()
    stats["transitions"] += _flush(batch, watch, None)
    return {**stats, "relists": watch.relists, "reconnects": watch.reconnects}


def _flush(batch: list[tuple[str, dict]], watch: ResumableWatch, since: datetime | None) -> int:
    added = services.record_workload_events(batch, rebuilt_since=since) if batch else 0
    # Inside a relist after a 410 the old cursor stays until the gap is stored: a run
    # that dies before then gets the 410 again next time, and the gap is not forgotten.
    if since is None:
        services.save_cursor(CURSOR, watch.resource_version, events=len(batch))
    batch.clear()
    return added


def _rebuild(client: KubeClient, since: datetime) -> int:
    """After a relist that followed a 410: store the gap, rebuild what Events still show.

    Unreadable Events (not yet allowed, API trouble) leave the gap unknown rather
    than stopping the recorder: the report then says so instead of guessing.
    """
    try:
        events = client.list(EVENTS, field_selector=kueue_events.FIELD_SELECTOR)
    except KubeError as exc:
        log.warning("recorder: Workload Events unreadable, gap left unknown: %s", exc.describe())
        events = None
    gap = services.record_history_gap(since, timezone.now(), GapCause.WATCH_EXPIRED, events)
    return gap.rebuilt


def lag_seconds() -> float | None:
    """Seconds since the recorder last saved its cursor (None before its first run).

    Registered as ``qm_history_recorder_lag_seconds`` and read at scrape time: a
    recorder that stopped running, or runs without getting through, shows as a
    growing value whatever process answers the scrape.
    """
    saved = WatchCursor.objects.filter(name=CURSOR).values_list("updated_at", flat=True).first()
    return None if saved is None else (timezone.now() - saved).total_seconds()
