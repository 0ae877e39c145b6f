"""Pure: the time range and step a usage view covers, from its query parameters.

``range=24h|7d|30d`` ends at the current minute; ``range=custom`` (or ``from`` and
``to`` alone) takes ISO 8601 times, UTC when they carry no offset (what a browser's
``datetime-local`` input sends). The step is the shortest of ``STEPS_MINUTES`` that
keeps a range within ``MAX_POINTS`` points, and ``from`` is moved back to a whole
number of steps before ``to``, so every step is as long as the others.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from core.errors import InvalidInput

PRESETS = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "30d": timedelta(days=30)}
CUSTOM = "custom"
TIMES = ("from", "to")
LONGEST = timedelta(days=90)
MAX_POINTS = 500
STEPS_MINUTES = (1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440)
EXAMPLE = "2026-11-16T09:00Z"
MINUTE = 60


@dataclass(frozen=True)
class Range:
    """[start, end) in minutes since the Unix epoch, cut into steps of ``step`` minutes."""

    name: str
    start: int
    end: int
    step: int

    @property
    def steps(self) -> int:
        return (self.end - self.start) // self.step

    def times(self) -> list[datetime]:
        """The instants a series has a value at: ``start`` and the end of every step."""
        return [_at(self.start + i * self.step) for i in range(self.steps + 1)]


def parse_range(params: Mapping[str, str], *, now: datetime) -> Range:
    """The range ``params`` ask for; ``InvalidInput`` naming each bad field otherwise."""
    unknown = sorted(set(params) - {"range", *TIMES})
    if unknown:
        raise InvalidInput.single(
            unknown[0][:40], "is not a parameter here: use range, or from and to"
        )
    custom = bool(params.get("from") or params.get("to"))
    name = params.get("range")
    if name is None:  # absent, not empty: an empty choice is a bad one
        name = CUSTOM if custom else "24h"
    if name in PRESETS:
        if custom:
            field = "from" if params.get("from") else "to"
            raise InvalidInput.single(
                field, f"only with range=custom, e.g. range=custom&from={EXAMPLE}"
            )
        end = _minute(now) + 1
        return _stepped(name, end - int(PRESETS[name].total_seconds()) // MINUTE, end)
    if name != CUSTOM:
        choices = ", ".join([*PRESETS, CUSTOM])
        raise InvalidInput.single("range", f"must be one of {choices}, e.g. range=7d")
    return _custom(params)


def _custom(params: Mapping[str, str]) -> Range:
    errors: dict[str, list[str]] = {}
    times = {}
    for field in TIMES:
        times[field] = _time(params.get(field) or "", field, errors)
    if errors:
        raise InvalidInput(errors)
    start, end = _minute(times["from"]), -(-int(times["to"].timestamp()) // MINUTE)
    if end <= start:
        raise InvalidInput.single("to", f"must be after from (from={EXAMPLE}&to=2026-11-17T09:00Z)")
    if end - start > LONGEST.total_seconds() // MINUTE:
        days = LONGEST.days
        raise InvalidInput.single(
            "to",
            f"must be at most {days} days after from, e.g. from={EXAMPLE}&to=2026-11-23T09:00Z",
        )
    return _stepped(CUSTOM, start, end)


def _time(text: str, field: str, errors: dict[str, list[str]]) -> datetime | None:
    if not text:
        errors[field] = [f"is required with range=custom: an ISO 8601 time such as {EXAMPLE}"]
        return None
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        errors[field] = [f"must be an ISO 8601 time such as {EXAMPLE}, not {text[:40]!r}"]
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _stepped(name: str, start: int, end: int) -> Range:
    step = next(s for s in STEPS_MINUTES if math.ceil((end - start) / s) <= MAX_POINTS)
    steps = math.ceil((end - start) / step)
    return Range(name, end - steps * step, end, step)


def _minute(value: datetime) -> int:
    return int(value.timestamp()) // MINUTE


def _at(minute: int) -> datetime:
    return datetime.fromtimestamp(minute * MINUTE, tz=UTC)
