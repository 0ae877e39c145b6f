"""Virtual time: integer milliseconds since the Unix epoch.

The simulation never reads the wall clock; every timestamp it writes comes
from here so runs are reproducible.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import lru_cache

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_MS = {"h": 3_600_000, "m": 60_000, "s": 1_000, "ms": 1}


def parse_duration(text: str) -> int:
    """Parse a Go-style duration (``2h``, ``1h30m``, ``90s``, ``200ms``) to ms."""
    text = str(text).strip()
    position, total = 0, 0.0
    for match in _DURATION_PART.finditer(text):
        if match.start() != position:
            break
        total += float(match.group(1)) * _UNIT_MS[match.group(2)]
        position = match.end()
    if position != len(text) or not text:
        raise ValueError(f"not a duration: {text!r}")
    return round(total)


def parse_timestamp(text: str) -> int:
    """Parse an RFC 3339 timestamp (``2026-01-01T00:00:00Z``) to epoch ms."""
    parsed = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return round(parsed.timestamp() * 1000)


def format_timestamp(ms: int) -> str:
    """Render epoch ms as Kubernetes does: whole seconds, UTC, trailing ``Z``."""
    days, second = divmod(ms // 1000, 86_400)
    return f"{_date(days)}T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"


@lru_cache(maxsize=1024)
def _date(days: int) -> str:
    return datetime.fromtimestamp(days * 86_400, tz=UTC).strftime("%Y-%m-%d")


def format_duration(ms: int) -> str:
    """Short human form used in messages (``90s``, ``1.5s``, ``2h0m0s``)."""
    if ms % 1000:
        return f"{ms / 1000:g}s"
    seconds = ms // 1000
    if seconds < 3600:
        return f"{seconds}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60}m{seconds % 60}s"
