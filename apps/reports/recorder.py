"""The Workload history recorder: a subscriber of the informer's Workload stream.

The informer (``informer/run.py``) owns the watch, its lease and its resume cursor
(named ``CURSOR``, as before the informer existed); each batch of Workload events comes
here in order (``follow_workloads``) and is written through
``services.record_workload_events`` before the informer saves the cursor. A crash between write and cursor save only means the next
run replays a few events, which the unique (workload, type, time) key turns into no-ops.
Gaps between runs are covered by the server's event history, and if that is gone, by
the relist (whose SYNCED set also reveals workloads deleted in the meantime).

A relist after a 410 only shows each Workload's latest conditions, so the time
from the last saved progress to that relist (the events' ``gap_since``) is stored as a
``HistoryGap``, and what Kueue's Events on Workloads still show of it (admissions,
evictions, preemptions) is rebuilt; see ``services.record_history_gap`` and
docs/operations.md.
"""

from __future__ import annotations

import logging
from datetime import datetime
from itertools import groupby

from django.conf import settings
from django.utils import timezone

from apps.reports import kueue_events, services
from apps.reports.choices import GapCause
from apps.reports.services.workload_records import OBJECT_EVENTS
from core.kube import KubeClient, KubeError
from informer import cursors
from informer.kinds import EVENT
from informer.registry import JOB_PODS, WORKLOADS, Subscriber
from informer.run import Delivery, run_informer

CURSOR = WORKLOADS.cursor
EVENTS = EVENT
log = logging.getLogger(__name__)


def follow_workloads(delivery: Delivery) -> dict:
    """The subscriber: store the transitions a batch of Workload events shows."""
    stats = {"events": 0, "transitions": 0, "vanished": 0, "gaps": 0, "rebuilt": 0}
    for since, group in groupby(delivery.events, key=lambda event: event.gap_since):
        batch: list[tuple[str, dict]] = []
        for event in group:
            if event.type in OBJECT_EVENTS:
                batch.append((event.type, event.obj))
                stats["events"] += 1
            elif event.type == "SYNCED":
                stats["transitions"] += _flush(batch, since)
                stats["vanished"] += services.mark_vanished(event.obj["uids"])
                if since is not None:
                    stats["gaps"] += 1
                    stats["rebuilt"] += _rebuild(delivery.client, since)
        stats["transitions"] += _flush(batch, since)
    return stats


def _flush(batch: list[tuple[str, dict]], since: datetime | None) -> int:
    added = services.record_workload_events(batch, rebuilt_since=since) if batch else 0
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


SUBSCRIBER = Subscriber(
    "history",
    follow_workloads,
    (WORKLOADS,),
    enabled=lambda: settings.QM_HISTORY_RECORDER,
)


def follow_checkpoint_reports(delivery: Delivery) -> dict:
    """The subscriber of batch pods: the checkpoint a stopped trainer reported in its
    termination message joins its Workload's history, as its annotation would."""
    pods = [e.obj for e in delivery.events if e.type in OBJECT_EVENTS]
    return {"checkpoints": services.record_reported_checkpoints(pods)}


CHECKPOINT_SUBSCRIBER = Subscriber(
    "history-checkpoints",
    follow_checkpoint_reports,
    (JOB_PODS,),
    # The portal's batch pods exist only where it submits jobs, i.e. follows the cluster.
    enabled=lambda: settings.QM_HISTORY_RECORDER and settings.QM_CLUSTER_SYNC,
)


def run_recorder(*, seconds: float, kube: KubeClient | None = None) -> dict:
    """One informer run (every enabled subscriber), answered with the recorder's counters."""
    result = run_informer(seconds=seconds, kube=kube)
    if "skipped" in result:
        return result
    mine = result["subscribers"].get(SUBSCRIBER.name, {})
    stream = result["streams"].get(WORKLOADS.name, {"relists": 0, "reconnects": 0})
    counters = dict.fromkeys(("events", "transitions", "vanished", "gaps", "rebuilt"), 0)
    return {**result, **counters, **mine, **stream}


def lag_seconds() -> float | None:
    """Seconds since the recorder last saved its cursor (None before its first run).

    Registered as ``qm_history_recorder_lag_seconds`` and read at scrape time: a
    recorder that stopped running, or runs without getting through, shows as a
    growing value whatever process answers the scrape.
    """
    saved = cursors.last_progress(CURSOR)
    return None if saved is None else (timezone.now() - saved).total_seconds()
