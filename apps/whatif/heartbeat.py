"""A replay's heartbeat: proof that a live worker is still computing it.

The replay core is pure and may compute for minutes between two progress updates,
so a thread stamps the Replay row every ``QM_WHATIF_HEARTBEAT_SECONDS`` while it
runs. The thread lives and dies with the worker process: a killed worker stops
stamping, and the sweep (``services.fail_stuck_whatifs``) notices.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection

from apps.whatif import services


@contextmanager
def beating(run_id: int, key: str) -> Iterator[None]:
    """Stamp the replay now and then every heartbeat interval until the block exits."""
    services.stamp_replay(run_id, key)
    stop = threading.Event()
    thread = threading.Thread(
        target=_beat, args=(run_id, key, stop), daemon=True, name=f"heartbeat {key}"
    )
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _beat(run_id: int, key: str, stop: threading.Event) -> None:
    try:
        while not stop.wait(settings.QM_WHATIF_HEARTBEAT_SECONDS):
            services.stamp_replay(run_id, key)
    finally:
        connection.close()  # the thread's own connection, not the task's
