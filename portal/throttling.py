"""API rate limits read from settings at request time (so they follow configuration).

DRF's stock throttles keep a list of every request's timestamp per user and read,
trim and re-store that list on each request: at the default 6,000/min that is
thousands of floats pickled in and out of the cache per call, and it grows with the
very rate it limits (it was the largest per-request cost of the status poll after
the database). These count instead: two fixed-window counters per client, the
previous window weighted by how much of it still overlaps the sliding window
(the usual sliding-window estimate), so each request costs one read and one
increment whatever the rate. Counted per web process, in the default cache.

Clients are told apart by ``core.client_address`` (X-Forwarded-For only from a
trusted proxy), not DRF's reading, which believes the header from anyone.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from core.client_address import counted_as, request_client_address


class WindowCounterMixin:
    """``allow_request``/``wait`` for DRF's ``SimpleRateThrottle`` subclasses, O(1) per request."""

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        now = self.timer()
        window, into = divmod(now, self.duration)
        current, previous = f"{self.key}:{int(window)}", f"{self.key}:{int(window) - 1}"
        counts = self.cache.get_many([current, previous])
        self.used = counts.get(current, 0)
        self.carried = counts.get(previous, 0) * (1 - into / self.duration)
        self.into = into
        if self.used + self.carried >= self.num_requests:
            return False
        # add() only succeeds for the first request of a window; the rest increment.
        # Two threads racing here can overshoot by one, like DRF's own throttles.
        if not self.cache.add(current, 1, self.duration * 2):
            try:
                self.cache.incr(current)
            except ValueError:  # expired between add() and incr()
                self.cache.set(current, 1, self.duration * 2)
        return True

    def get_ident(self, request) -> str:
        return counted_as(request_client_address(request))

    def wait(self) -> float:
        """Seconds until the estimate drops below the limit (for ``Retry-After``)."""
        if self.used >= self.num_requests or self.carried <= 0:
            return self.duration - self.into
        # The previous window's weight falls linearly to 0 over this window.
        per_second = self.carried / (self.duration - self.into)
        excess = self.used + self.carried - self.num_requests + 1
        return min(self.duration - self.into, max(0.0, excess / per_second))


class UserRate(WindowCounterMixin, UserRateThrottle):
    def get_rate(self) -> str:
        return settings.API_RATE_USER


class AnonRate(WindowCounterMixin, AnonRateThrottle):
    def get_rate(self) -> str:
        return settings.API_RATE_ANON
