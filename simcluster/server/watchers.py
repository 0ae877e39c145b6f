"""How far each watch stream has got, so a generated history can wait for its watchers.

A watch stream registers itself per resource (``open``), reports the resourceVersion up
to which it has sent its client every event of that resource (``advance``) and leaves
(``close``). ``wait_until_seen(resource, rv)`` blocks until every stream of that
resource has got there; the demo week's generator uses it to play time no faster than
the clients watching it (``simcluster.live_seed``).

Clients such as the portal's recorder watch in bounded runs: a stream ends, and a few
seconds later the next one resumes from the resourceVersion the client saved. So a
closed stream *lingers* at its last position for ``linger`` seconds, holding the wait,
until a stream resuming from at or below that position takes its place (the lingering
stream with the lowest position at or above the resume point: the closest match) or the
time is up (the client has gone for good).
"""

from __future__ import annotations

import itertools
import threading
import time

ResourceKey = tuple[str, str]
LINGER_SECONDS = 30.0


class WatchPositions:
    def __init__(self, linger: float = LINGER_SECONDS) -> None:
        self.linger = linger
        self._changed = threading.Condition()
        self._streams: dict[int, tuple[ResourceKey, int]] = {}
        # Closed streams still expected back: token -> (resource, position, until).
        self._lingering: dict[int, tuple[ResourceKey, int, float]] = {}
        self._ids = itertools.count(1)

    def open(self, resource: ResourceKey, resumed_from: int | None = None) -> int:
        """Register a stream; ``resumed_from`` is the resourceVersion it resumes after."""
        with self._changed:
            if resumed_from is not None:
                self._take_over(resource, resumed_from)
            token = next(self._ids)
            self._streams[token] = (resource, resumed_from or 0)
            self._changed.notify_all()
            return token

    def _take_over(self, resource: ResourceKey, rv: int) -> None:
        candidates = [
            (position, token)
            for token, (key, position, _until) in self._lingering.items()
            if key == resource and position >= rv
        ]
        if candidates:
            self._lingering.pop(min(candidates)[1])

    def advance(self, token: int, rv: int) -> None:
        with self._changed:
            if token in self._streams:
                resource, _ = self._streams[token]
                self._streams[token] = (resource, rv)
                self._changed.notify_all()

    def close(self, token: int) -> None:
        with self._changed:
            stream = self._streams.pop(token, None)
            if stream is not None and self.linger > 0:
                resource, position = stream
                self._lingering[token] = (resource, position, time.monotonic() + self.linger)
            self._changed.notify_all()

    def slowest(self, resource: ResourceKey) -> int | None:
        """The lowest position among the streams of ``resource`` (open or lingering);
        None when there is none."""
        with self._changed:
            return self._slowest(resource)

    def _slowest(self, resource: ResourceKey) -> int | None:
        now = time.monotonic()
        for token, (_key, _position, until) in list(self._lingering.items()):
            if until <= now:
                del self._lingering[token]
        positions = [rv for key, rv in self._streams.values() if key == resource]
        positions += [rv for key, rv, _until in self._lingering.values() if key == resource]
        return min(positions) if positions else None

    def wait_until_seen(self, resource: ResourceKey, rv: int, timeout: float) -> bool:
        """Block until at least one stream of ``resource`` is open and every stream of it,
        open or lingering, has been sent everything up to ``rv``; False at the timeout."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                slowest = self._slowest(resource)
                is_open = any(key == resource for key, _rv in self._streams.values())
                if is_open and slowest is not None and slowest >= rv:
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(min(remaining, 1.0))
