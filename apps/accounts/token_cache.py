"""Resolved API tokens, remembered per web process and forgotten as soon as they change.

Looking a token up (one query joining the user, two model instances) was the largest
single cost of a status poll. Entries live at most ``QM_API_TOKEN_CACHE_SECONDS``,
and are only ever served while this process is *listening*: on PostgreSQL, triggers
(migration ``0002_token_cache_triggers``) send ``NOTIFY qm_auth_changed`` whenever a
token is revoked, re-keyed or deleted and whenever a user row changes or is deleted,
whoever does it (service, admin, ``update()``, raw SQL). Notifications are delivered
on commit to a listener thread in every process, which empties the cache. In the
process that made the change, model signals and ``revoke_api_token`` empty it at once.

Without a live listener (SQLite, or while it reconnects after a database restart)
the cache is empty and unused, so nothing can outlive a revocation there either.

Race: a request reads a token from the database, then a revocation commits and its
notification empties the cache, then the request stores what it read. Every
invalidation bumps ``generation``; an entry is only stored if the generation is still
the one taken before the read.
"""

from __future__ import annotations

import copy
import logging
import os
import threading
import time

import psycopg
from django.conf import settings
from django.db import connections

logger = logging.getLogger(__name__)
CHANNEL = "qm_auth_changed"
# How long the listener waits for a notification before checking its own connection.
LISTEN_PING_SECONDS = 30


class _State:
    """One process's cache and its listener; replaced wholesale after a fork or ``stop()``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entries: dict[str, tuple[float, object]] = {}
        self.generation = 0
        self.live = False
        self.pid = os.getpid()
        self.listener: threading.Thread | None = None
        self.backend_pid: int | None = None

    def invalidate(self, *, live: bool | None = None) -> None:
        with self.lock:
            self.generation += 1
            self.entries.clear()
            if live is not None:
                self.live = live


_state = _State()
_replacing = threading.Lock()


def _seconds() -> float:
    return float(settings.QM_API_TOKEN_CACHE_SECONDS)


def generation() -> int:
    """Take this before reading a token from the database; pass it to ``put``."""
    return _current().generation


def get(key_hash: str):
    """A private copy of the cached token (with its user), or None."""
    state = _current()
    if _seconds() <= 0 or not _listening(state):
        return None
    with state.lock:
        entry = state.entries.get(key_hash)
    if entry is None or entry[0] < time.monotonic():
        return None
    return _copy(entry[1])


def put(key_hash: str, token, taken: int) -> None:
    state = _current()
    if _seconds() <= 0:
        return
    with state.lock:
        if state.live and state.generation == taken:
            state.entries[key_hash] = (time.monotonic() + _seconds(), _copy(token))


def touched(key_hash: str, last_used_at) -> None:
    """Keep the cached ``last_used_at`` in step, so the next minute's write still happens."""
    state = _current()
    with state.lock:
        entry = state.entries.get(key_hash)
        if entry is not None:
            entry[1].last_used_at = last_used_at


def invalidate(*_args, **_kwargs) -> None:
    """Forget every entry of this process (the signature fits a signal receiver)."""
    _current().invalidate()


def is_live() -> bool:
    return _listening(_current())


def stop() -> None:
    """End this process's listener and forget its state (before a test database is dropped)."""
    global _state
    with _replacing:
        old, _state = _state, _State()
    if old.backend_pid:
        # The listener is blocked waiting for notifications; ending its backend wakes it.
        with psycopg.connect(**_conninfo(), autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(%s)", [old.backend_pid])
    if old.listener is not None:
        old.listener.join(timeout=10)


def _copy(token):
    # Requests must not share instances: a view may set attributes on request.user.
    clone = copy.copy(token)
    clone.user = copy.copy(token.user)
    return clone


def _current() -> _State:
    global _state
    if _state.pid != os.getpid():
        with _replacing:
            if _state.pid != os.getpid():
                _state = _State()  # a forked child inherits the parent's state, not its thread
    return _state


def _listening(state: _State) -> bool:
    """Start the process's listener on first use; True once it is listening."""
    if state.listener is None and connections["default"].vendor == "postgresql":
        with state.lock:
            if state.listener is None:
                state.listener = threading.Thread(
                    target=_listen, args=(state,), name="token-cache-listener", daemon=True
                )
                state.listener.start()
    return state.live


def _conninfo() -> dict:
    db = connections["default"].settings_dict
    params = {
        "dbname": db["NAME"],
        "user": db["USER"],
        "password": db["PASSWORD"],
        "host": db["HOST"],
        "port": db["PORT"],
        "sslmode": (db.get("OPTIONS") or {}).get("sslmode"),
        "application_name": "quartermaster-token-cache",
    }
    return {k: v for k, v in params.items() if v not in ("", None)}


def _listen(state: _State) -> None:
    failures = 0
    try:
        while state is _state:
            try:
                _listen_once(state)
            except Exception as exc:  # psycopg errors, and anything unforeseen: stay off
                was_live = state.live
                state.invalidate(live=False)
                if state is not _state:
                    return
                failures = 1 if was_live else failures + 1  # back off only while it fails
                logger.warning("API token cache off until its listener reconnects: %s", exc)
                time.sleep(min(30.0, 0.5 * 2**failures))
    finally:
        state.invalidate(live=False)  # nobody listens any more: nothing may be served


def _listen_once(state: _State) -> None:
    with psycopg.connect(**_conninfo(), autocommit=True) as conn:
        state.backend_pid = conn.info.backend_pid
        conn.execute(f"LISTEN {CHANNEL}")
        # Whatever changed before LISTEN took effect was not heard: start empty.
        state.invalidate(live=True)
        while state is _state:
            for _ in conn.notifies(timeout=LISTEN_PING_SECONDS):
                state.invalidate()
            conn.execute("SELECT 1")  # a silently dead connection surfaces here
