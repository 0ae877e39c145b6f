"""The controller's clock: wall time (``real``) or time moved only by ``advance`` (``virtual``).

Everything the live cluster writes (creation timestamps, condition times,
pod start times) reads this clock, so a virtual run is reproducible and a
real run looks like a real cluster. While the controller replays an instant
it *pins* the clock to that instant so objects it writes carry the instant's
time even when it is catching up on a backlog.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

REAL, VIRTUAL = "real", "virtual"


def wall_ms() -> int:
    return int(time.time() * 1000)


class SimClock:
    """Epoch milliseconds; ``mode`` is ``real`` or ``virtual``."""

    def __init__(self, mode: str = REAL, start_ms: int | None = None) -> None:
        if mode not in (REAL, VIRTUAL):
            raise ValueError(f"clock mode must be {REAL} or {VIRTUAL}, not {mode!r}")
        self.mode = mode
        # Whole seconds: Kubernetes timestamps have second precision.
        self._virtual_ms = (start_ms if start_ms is not None else wall_ms()) // 1000 * 1000
        self._pinned: int | None = None

    def now_ms(self) -> int:
        if self._pinned is not None:
            return self._pinned
        return wall_ms() if self.mode == REAL else self._virtual_ms

    def datetime(self) -> datetime:
        """``now_ms`` as an aware datetime (the API server's clock callable)."""
        return datetime.fromtimestamp(self.now_ms() / 1000, tz=UTC)

    def set_virtual(self, ms: int) -> None:
        """Move virtual time (never backwards)."""
        self._virtual_ms = max(self._virtual_ms, ms)

    def switch_to_real(self) -> None:
        """After a fast-forwarded history, continue on the wall clock."""
        self.mode = REAL

    @contextmanager
    def pinned(self, ms: int) -> Iterator[None]:
        self._pinned = ms
        try:
            yield
        finally:
            self._pinned = None
