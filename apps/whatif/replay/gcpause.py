"""Pause Python's cyclic garbage collector around a replay.

A replay keeps ~100k objects alive (workloads, manifests, queues) and makes
millions of short-lived ones; every full pass of the cyclic collector walks all
the long-lived ones again, which was a sixth of a week's replay. The replay
itself makes next to no reference cycles (about a hundred objects a week,
measured), so they wait for the collector until the replay ends.

Process-wide, like the collector: nested and concurrent pauses (threads of one
worker) count, and only the last one out turns it back on, if it was on.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()
