"""One informer: one watch per stream, one lease, one cursor per stream, many subscribers.

A run (``run_informer``, started by ``informer.tasks.run_informer_task``) lasts a bounded
time. It takes the one lease (so runs never overlap), starts one thread per stream the
enabled subscribers need, each following ``core.watching.ResumableWatch`` from that
stream's saved resourceVersion (which lists first when there is none, on 410 Gone and
every ``QM_RECORDER_RELIST_SECONDS``). The run's own thread takes the events in small
batches and hands each subscriber the ones of its streams, in order; only then does it
save each stream's cursor. A crash in between only replays events, and every subscriber
is idempotent (the recorder's unique transition key, status recomputed from the cluster).

A subscriber that raises is retried once with the same events; if it fails again, the
others still got them, the error goes into the run's result, and the run stops saving
cursors and ends: the next run resumes from the last batch everyone took, so the failing
subscriber sees the events again and the others see them twice, harmlessly.

After a 410 Gone the relist shows only each object's latest state: its events carry
``gap_since``, the last time the stream's history was known complete, and the cursor is
not saved until the relist's SYNCED has been handed out (so a run that dies in between
gets the 410 again and the gap is not forgotten).
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from core.kube import KubeClient, KubeError
from core.watching import ResumableWatch
from informer import cursors, registry
from informer.registry import Stream, Subscriber

log = logging.getLogger(__name__)
LEASE = "informer"
# Events arriving this close together are handed out together.
BATCH_SECONDS = 0.05
BATCH_MAX = 500
_END, _ERROR = "END", "ERROR"


@dataclass(frozen=True)
class Event:
    stream: str
    type: str  # ADDED | MODIFIED | DELETED | SYNCED | BOOKMARK
    obj: dict
    # An ADDED of a (re)list rather than a change seen live.
    listed: bool = False
    # Inside a relist after 410 Gone: what happened since then may be lost.
    gap_since: datetime | None = None


@dataclass
class Delivery:
    """What one subscriber gets per batch."""

    events: list[Event]
    client: KubeClient
    memo: dict  # the subscriber's own, kept for the run (e.g. objects seen so far)


@dataclass
class _Progress:
    resource_version: str = ""
    # The last time this stream's history was known complete: where a gap would start.
    complete_at: datetime | None = None
    relists: int = 0
    reconnects: int = 0


@dataclass
class _Raw:
    stream: Stream
    type: str
    obj: dict
    resource_version: str
    listed: bool
    expired: bool


def run_informer(
    *,
    seconds: float,
    kube: KubeClient | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> dict:
    """Follow the cluster for ``seconds`` for every enabled subscriber; returns counters."""
    subscribers = registry.active()
    if not subscribers:
        return {"skipped": "no subscriber enabled"}
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    if not cursors.acquire_lease(LEASE, owner, seconds + 60):
        return {"skipped": "another informer run holds the lease"}
    try:
        client = kube or KubeClient()
        try:
            return _Run(seconds, stop, subscribers).follow(client)
        finally:
            if kube is None:
                client.close()
    finally:
        cursors.release_lease(LEASE, owner)


def _streams(subscribers: list[Subscriber]) -> list[Stream]:
    found: dict[str, Stream] = {}
    for subscriber in subscribers:
        for stream in subscriber.streams:
            found.setdefault(stream.name, stream)
    return list(found.values())


class _Run:
    def __init__(self, seconds: float, stop: Callable[[], bool], subscribers: list[Subscriber]):
        self.deadline = time.monotonic() + seconds
        self.halt = threading.Event()
        self.stop = lambda: stop() or self.halt.is_set()
        self.subscribers = subscribers
        self.streams = _streams(subscribers)
        self.raw: queue.Queue = queue.Queue()
        self.progress: dict[str, _Progress] = {}
        self.memos: dict[str, dict] = {s.name: {} for s in subscribers}
        self.held_back = False  # a subscriber failed: cursors stay where everyone was
        self.stats: dict = {
            "events": 0,
            "batches": 0,
            "errors": [],
            "subscribers": {s.name: {} for s in subscribers},
            "streams": {},
        }

    def follow(self, client: KubeClient) -> dict:
        pumps = [self._start(stream) for stream in self.streams]
        try:
            open_streams = len(pumps)
            while open_streams:
                batch = self._next_batch()
                open_streams -= sum(1 for item in batch if item.type == _END)
                self._hand_out(client, batch)
        finally:
            self.halt.set()
            for pump in pumps:
                pump.join(timeout=30)
        for name, progress in self.progress.items():
            self.stats["streams"][name] = {
                "relists": progress.relists,
                "reconnects": progress.reconnects,
            }
        return self.stats

    # ----- the watch threads (no database access there) ----------------------------------

    def _start(self, stream: Stream) -> threading.Thread:
        saved = cursors.cursor(stream.cursor)
        rv = saved.resource_version
        self.progress[stream.name] = _Progress(rv, saved.updated_at if rv else None)
        thread = threading.Thread(
            target=self._pump, args=(stream, rv), name=f"informer-{stream.name}", daemon=True
        )
        thread.start()
        return thread

    def _pump(self, stream: Stream, saved: str) -> None:
        progress = self.progress[stream.name]
        try:
            with KubeClient() as kube:
                watch = ResumableWatch(
                    kube,
                    stream.ref(),
                    resource_version=saved,
                    deadline=self.deadline,
                    relist_every=settings.QM_RECORDER_RELIST_SECONDS,
                    label_selector=stream.selector,
                    stop=self.stop,
                )
                synced_relists = 0
                for kind, obj in watch:
                    listing = watch.resource_version == "" or kind == "SYNCED"
                    expired = listing and watch.list_cause == "expired"
                    listed = kind == "ADDED" and watch.relists != synced_relists
                    if kind == "SYNCED":
                        synced_relists = watch.relists
                    raw = _Raw(stream, kind, obj, watch.resource_version, listed, expired)
                    self.raw.put(raw)
                    progress.relists, progress.reconnects = watch.relists, watch.reconnects
        except KubeError as exc:  # permanent (403, 404): transient ones are retried inside
            self.raw.put(_Raw(stream, _ERROR, {"error": exc.describe()}, "", False, False))
        except Exception as exc:  # a bug must end this stream, not leave the run waiting
            log.exception("informer: the watch of %s failed", stream.name)
            self.raw.put(_Raw(stream, _ERROR, {"error": repr(exc)}, "", False, False))
        finally:
            self.raw.put(_Raw(stream, _END, {}, "", False, False))

    def _next_batch(self) -> list[_Raw]:
        batch = [self.raw.get()]
        while len(batch) < BATCH_MAX:
            try:
                batch.append(self.raw.get(timeout=BATCH_SECONDS))
            except queue.Empty:
                break
        return batch

    # ----- the run's thread: events → subscribers → cursors ------------------------------------

    def _hand_out(self, client: KubeClient, batch: list[_Raw]) -> None:
        events = []
        for raw in batch:
            if raw.type == _ERROR:
                self.stats["errors"].append(f"{raw.stream.name}: {raw.obj['error']}")
            elif raw.type != _END:
                since = self.progress[raw.stream.name].complete_at if raw.expired else None
                events.append(Event(raw.stream.name, raw.type, raw.obj, raw.listed, since))
        self.stats["events"] += len(events)
        if events:
            for subscriber in self.subscribers:
                self._deliver(subscriber, client, events)
        if not self.held_back:
            self._save_cursors(batch)
        self.stats["batches"] += 1

    def _deliver(self, subscriber: Subscriber, client: KubeClient, events: list[Event]) -> None:
        wanted = {s.name for s in subscriber.streams}
        mine = [e for e in events if e.stream in wanted]
        if not mine:
            return
        delivery = Delivery(mine, client, self.memos[subscriber.name])
        for attempt in (1, 2):
            try:
                counters = subscriber.handle(delivery) or {}
                break
            except Exception as exc:
                log.exception(
                    "informer: subscriber %s failed (attempt %d)", subscriber.name, attempt
                )
                if attempt == 2:
                    self.stats["errors"].append(f"{subscriber.name}: {exc!r}")
                    self.held_back = True
                    self.halt.set()  # end the run: the next one replays from the cursors
                    return
        totals = self.stats["subscribers"][subscriber.name]
        for key, value in counters.items():
            totals[key] = totals.get(key, 0) + value

    def _save_cursors(self, batch: list[_Raw]) -> None:
        now = timezone.now()
        for stream in {raw.stream.name: raw.stream for raw in batch}.values():
            mine = [raw for raw in batch if raw.stream is stream and raw.type not in (_END, _ERROR)]
            rvs = [raw.resource_version for raw in mine if raw.resource_version]
            if not rvs:
                continue  # inside a relist after a 410, or nothing happened
            synced = any(raw.type == "SYNCED" for raw in mine)
            changes = sum(1 for raw in mine if raw.type in ("ADDED", "MODIFIED", "DELETED"))
            cursors.save_cursor(stream.cursor, rvs[-1], events=changes, relisted=synced)
            progress = self.progress[stream.name]
            progress.resource_version = rvs[-1]
            if synced or not any(raw.expired for raw in mine):
                progress.complete_at = now
