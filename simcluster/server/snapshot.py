"""Saving and loading the store as a JSON file, and the periodic saver thread."""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

from simcluster.server.resources import RESOURCE_TYPES
from simcluster.server.store import Store

log = logging.getLogger(__name__)
FORMAT_VERSION = 1


def save(store: Store, path: str | os.PathLike[str]) -> int:
    """Write atomically (temp file + rename) so a crash never leaves half a snapshot;
    returns the resourceVersion saved."""
    target = Path(path)
    rv, text = store.dump_json(format=FORMAT_VERSION)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(target)
    return rv


def load(store: Store, path: str | os.PathLike[str]) -> bool:
    """Restore from ``path`` if it exists; returns whether anything was loaded."""
    target = Path(path)
    if not target.exists():
        return False
    data = json.loads(target.read_text())
    store.load(data, (rtype.key for rtype in RESOURCE_TYPES))
    return True


class PeriodicSaver:
    """Saves every ``interval`` seconds when the store changed since the last save."""

    def __init__(self, store: Store, path: str | os.PathLike[str], interval: float) -> None:
        self.store = store
        self.path = path
        self.interval = interval
        self._stop = threading.Event()
        self._saved_rv = store.resource_version
        self._thread = threading.Thread(target=self._run, name="simcluster-snapshot", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def save_now(self) -> None:
        self._saved_rv = save(self.store, self.path)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if self.store.resource_version != self._saved_rv:
                try:
                    self.save_now()
                except OSError:
                    log.exception("periodic snapshot to %s failed", self.path)

    def stop(self) -> None:
        """Stop the thread and write a final snapshot, unless the last save (perhaps the
        periodic one that was running when asked to stop) already holds everything."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        if self.store.resource_version != self._saved_rv or not Path(self.path).exists():
            self.save_now()
