"""Debounce and single-flight for reconcile runs, across web processes and workers.

* ``claim_pending`` marks "a reconcile is scheduled"; while the mark stands, more
  policy commits do not schedule more runs (bursts collapse into one).
* ``exclusive`` is the run lock: one reconcile at a time over all workers.

With ``REDIS_URL`` both live in Redis (``SET NX`` and a Redis lock with a
timeout, so a killed worker cannot hold it forever). The embedded default runs
every process on one machine, so an ``O_EXCL`` marker file and an ``flock`` on
the data directory do the same job (the kernel drops the flock with its process).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import redis
from django.conf import settings

PENDING_KEY = "quartermaster:reconcile:pending"
LOCK_KEY = "quartermaster:reconcile:lock"
PENDING_TTL_SECONDS = 30
# Short, and renewed by a heartbeat while the run lasts: a SIGKILLed worker's lock
# lapses within this many seconds, so the redelivered task (acks_late) can run.
LOCK_TTL_SECONDS = 30
LOCK_HEARTBEAT_SECONDS = LOCK_TTL_SECONDS / 3


class RedisCoordinator:
    def __init__(self, url: str):
        self._redis = redis.Redis.from_url(url)

    def claim_pending(self) -> bool:
        return bool(self._redis.set(PENDING_KEY, "1", nx=True, ex=PENDING_TTL_SECONDS))

    def clear_pending(self) -> None:
        self._redis.delete(PENDING_KEY)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[bool]:
        lock = self._redis.lock(LOCK_KEY, timeout=LOCK_TTL_SECONDS, blocking=False)
        acquired = lock.acquire()
        done = threading.Event()
        if acquired:
            threading.Thread(target=_keep_alive, args=(lock, done), daemon=True).start()
        try:
            yield acquired
        finally:
            done.set()
            if acquired:
                with contextlib.suppress(redis.exceptions.LockError):
                    lock.release()


def _keep_alive(lock, done: threading.Event) -> None:
    """Renew the run lock until the run ends (or the process dies, and with it this)."""
    while not done.wait(LOCK_HEARTBEAT_SECONDS):
        try:
            lock.reacquire()
        except (redis.exceptions.RedisError, redis.exceptions.LockError):
            return  # lost it (Redis restarted): the run finishes; its writes are idempotent


class FileCoordinator:
    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self._pending, self._lock = folder / "reconcile.pending", folder / "reconcile.lock"

    def claim_pending(self) -> bool:
        with contextlib.suppress(FileNotFoundError):
            if time.time() - self._pending.stat().st_mtime > PENDING_TTL_SECONDS:
                self._pending.unlink()  # a lost run must not block triggers forever
        try:
            os.close(os.open(self._pending, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True

    def clear_pending(self) -> None:
        self._pending.unlink(missing_ok=True)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[bool]:
        with open(self._lock, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def coordinator() -> RedisCoordinator | FileCoordinator:
    if settings.REDIS_URL:
        return RedisCoordinator(settings.REDIS_URL)
    return FileCoordinator(Path(settings.DATA_DIR) / "reconcile")
