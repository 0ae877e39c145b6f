"""How far each open watch stream has got, so a generated history can wait for its watchers.

A watch stream registers itself per resource (``open``), reports the resourceVersion up
to which it has sent its client every event of that resource (``advance``) and leaves
(``close``). ``wait_until_seen(resource, rv)`` blocks until every open stream of that
resource has got there; the demo week's generator uses it to play time no faster than
the clients watching it (``simcluster.live_seed``).
"""

from __future__ import annotations

import itertools
import threading
import time

ResourceKey = tuple[str, str]


class WatchPositions:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._streams: dict[int, tuple[ResourceKey, int]] = {}
        self._ids = itertools.count(1)

    def open(self, resource: ResourceKey, rv: int) -> int:
        with self._changed:
            token = next(self._ids)
            self._streams[token] = (resource, rv)
            self._changed.notify_all()
            return token

    def advance(self, token: int, rv: int) -> None:
        with self._changed:
            if token in self._streams:
                resource, _ = self._streams[token]
                self._streams[token] = (resource, rv)
                self._changed.notify_all()

    def close(self, token: int) -> None:
        with self._changed:
            self._streams.pop(token, None)
            self._changed.notify_all()

    def slowest(self, resource: ResourceKey) -> int | None:
        """The lowest position among open streams of ``resource``; None when none is open."""
        with self._changed:
            return self._slowest(resource)

    def _slowest(self, resource: ResourceKey) -> int | None:
        positions = [rv for key, rv in self._streams.values() if key == resource]
        return min(positions) if positions else None

    def wait_until_seen(self, resource: ResourceKey, rv: int, timeout: float) -> bool:
        """Block until at least one stream of ``resource`` is open and every open one has
        been sent everything up to ``rv``; False at the timeout."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                slowest = self._slowest(resource)
                if slowest is not None and slowest >= rv:
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(min(remaining, 1.0))
