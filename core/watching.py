"""A resumable list + watch loop over ``KubeClient``, for any kind.

Usage::

    watch = ResumableWatch(kube, ref, resource_version=saved, deadline=time.monotonic() + 55)
    for kind, obj in watch:
        ...                                  # kind: ADDED | MODIFIED | DELETED | SYNCED | BOOKMARK
        save(watch.resource_version)         # resume point, valid after every event

* With no ``resource_version`` it lists first: one ``ADDED`` per existing object,
  then ``("SYNCED", {"uids": {...}, "resourceVersion": rv})`` — the complete set,
  so a consumer can notice objects deleted while nobody watched.
* Then it watches from the newest resourceVersion it has seen. A stream that
  ends (server timeout) or drops (connection reset, 5xx, 429) is re-opened from
  there, after a capped exponential backoff for failures; nothing is lost or
  repeated beyond what the server replays.
* 410 Gone (history compacted, server restarted) → relist, and ``SYNCED`` again.
  Every ``relist_every`` seconds it relists anyway (level-based safety net).
  ``list_cause`` says why the current (or latest) listing happened: ``"start"``
  (no resourceVersion to resume from), ``"expired"`` (after a 410: events in
  between may be lost for good) or ``"schedule"``; ``SYNCED`` carries it as ``cause``.
* Ends at ``deadline`` (a ``time.monotonic()`` value) or when ``stop()`` says so.
  Permanent errors (403, 404, bad config) propagate as ``KubeError``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from core.kube import KubeClient, KubeError, ResourceRef

GONE = 410
MAX_WATCH_SECONDS = 300


class ResumableWatch:
    def __init__(
        self,
        kube: KubeClient,
        ref: ResourceRef,
        *,
        resource_version: str = "",
        deadline: float | None = None,
        relist_every: float = 600.0,
        label_selector: str = "",
        stop: Callable[[], bool] = lambda: False,
        backoff_max: float = 10.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.kube, self.ref = kube, ref
        self.resource_version = resource_version
        self.deadline = deadline
        self.relist_every = relist_every
        self.label_selector = label_selector
        self.stop, self.sleep = stop, sleep
        self.backoff_max = backoff_max
        self.relists = self.reconnects = 0
        self.list_cause = ""
        self._listed_at = time.monotonic() if resource_version else None

    def _remaining(self) -> float:
        return float("inf") if self.deadline is None else self.deadline - time.monotonic()

    def _done(self) -> bool:
        return self.stop() or self._remaining() <= 0

    def _list(self) -> Iterator[tuple[str, dict]]:
        items, rv = self.kube.list_with_version(self.ref, label_selector=self.label_selector)
        self.relists += 1
        for item in items:
            yield "ADDED", item
        self.resource_version, self._listed_at = rv, time.monotonic()
        uids = {(i.get("metadata") or {}).get("uid") for i in items}
        yield "SYNCED", {"uids": uids, "resourceVersion": rv, "cause": self.list_cause}

    def _stream_seconds(self) -> int:
        until_relist = self.relist_every - (time.monotonic() - (self._listed_at or 0))
        return int(max(1, min(MAX_WATCH_SECONDS, self._remaining(), until_relist)))

    def _watch(self) -> Iterator[tuple[str, dict]]:
        events = self.kube.watch(
            self.ref,
            resource_version=self.resource_version,
            timeout_seconds=self._stream_seconds(),
            label_selector=self.label_selector,
        )
        for event in events:
            obj = event.get("object") or {}
            rv = (obj.get("metadata") or {}).get("resourceVersion")
            if rv:
                self.resource_version = rv
            yield event["type"], obj
            if self._done():
                return

    def __iter__(self) -> Iterator[tuple[str, dict]]:
        failures = 0
        cause = "schedule" if self.resource_version else "start"
        while not self._done():
            try:
                if not self.resource_version or self._relist_due():
                    self.list_cause = cause if not self.resource_version else "schedule"
                    yield from self._list()
                    cause = "schedule"
                yield from self._watch()
                failures = 0
            except KubeError as exc:
                if exc.code == GONE:
                    self.resource_version, cause = "", "expired"
                    continue
                if not exc.transient:
                    raise
                failures += 1
                self.reconnects += 1
                self.sleep(min(self.backoff_max, 0.2 * 2**failures, max(0.0, self._remaining())))

    def _relist_due(self) -> bool:
        return self._listed_at is None or time.monotonic() - self._listed_at >= self.relist_every
