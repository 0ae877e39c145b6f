"""Sign-in lockout: too many failed passwords lock a username, or a client address, out.

Counted in the "shared" cache (Redis in production) so every web process sees the same
counts. A username is counted whether or not such an account exists, so a lockout says
nothing about which accounts exist. Each count is a fixed window opened by its first
failure; reaching the limit starts a lockout and a fresh count.

When the cache cannot be reached, sign-in goes on without counting (logged): an outage
of Redis must not lock every user out of the portal.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import caches
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

ACCOUNT, ADDRESS = "account", "address"
_R = TypeVar("_R")


def _without_counts_if_unreachable(fallback: Any) -> Callable:
    def decorate(function: Callable[..., _R]) -> Callable[..., _R]:
        @wraps(function)
        def guarded(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except (RedisError, OSError) as exc:
                log.warning("sign-in counts unavailable (%s): not counted", exc)
                return fallback

        return guarded

    return decorate


@dataclass(frozen=True)
class Lockout:
    """A username (scope "account") or client address (scope "address") refused until ``until``."""

    scope: str
    subject: str
    until: float  # epoch seconds

    def minutes_left(self, now: float) -> int:
        return max(1, math.ceil((self.until - now) / 60))


@_without_counts_if_unreachable(None)
def current_lockout(username: str, address: str) -> Lockout | None:
    """The lockout that refuses this attempt, if any; checked before the password is."""
    stored = _cache().get_many(
        [_key("lock", scope, subject) for scope, subject in _subjects(username, address)]
    )
    for scope, subject in _subjects(username, address):
        until = stored.get(_key("lock", scope, subject))
        if until is not None and until > time.time():
            return Lockout(scope, subject, until)
    return None


@_without_counts_if_unreachable([])
def record_failure(username: str, address: str) -> list[Lockout]:
    """Count a wrong password; returns the lockouts this failure started (usually none)."""
    started = []
    for scope, subject in _subjects(username, address):
        if _count_failure(scope, subject) >= _limit(scope):
            lockout = _lock(scope, subject)
            if lockout is not None:
                started.append(lockout)
    return started


@_without_counts_if_unreachable(None)
def record_success(username: str) -> None:
    """A right password clears the username's count; the address's stands (one known
    password must not buy an address more guesses at other accounts)."""
    _cache().delete(_key("failures", ACCOUNT, username))


def _subjects(username: str, address: str) -> list[tuple[str, str]]:
    return [
        (scope, subject) for scope, subject in ((ACCOUNT, username), (ADDRESS, address)) if subject
    ]


def _limit(scope: str) -> int:
    if scope == ACCOUNT:
        return settings.QM_LOGIN_FAILURES_PER_ACCOUNT
    return settings.QM_LOGIN_FAILURES_PER_ADDRESS


def _count_failure(scope: str, subject: str) -> int:
    cache, key, window = (
        _cache(),
        _key("failures", scope, subject),
        settings.QM_LOGIN_WINDOW_SECONDS,
    )
    if cache.add(key, 1, window):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # the window closed between add() and incr()
        cache.set(key, 1, window)
        return 1


def _lock(scope: str, subject: str) -> Lockout | None:
    """Start a lockout unless a concurrent failure just did (then that one reports it)."""
    cache, seconds = _cache(), settings.QM_LOGIN_LOCKOUT_SECONDS
    until = time.time() + seconds
    if not cache.add(_key("lock", scope, subject), until, seconds):
        return None
    cache.delete(_key("failures", scope, subject))
    return Lockout(scope, subject, until)


def _key(kind: str, scope: str, subject: str) -> str:
    # Hashed: a username may be any text, and cache keys must stay short and plain.
    digest = hashlib.sha256(subject.encode("utf-8", "surrogatepass")).hexdigest()
    return f"login:{kind}:{scope}:{digest}"


def _cache():
    return caches["shared"]
