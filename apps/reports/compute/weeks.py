"""ISO weeks: ``2026-W47`` ↔ its [Monday 00:00 UTC, next Monday) bounds."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


def parse_week(text: str) -> tuple[int, int]:
    """(year, week) of ``YYYY-Www``; ValueError when malformed or out of range."""
    match = _WEEK.match(text or "")
    if not match:
        raise ValueError(f"{text!r} is not an ISO week like 2026-W47")
    year, week = int(match.group(1)), int(match.group(2))
    date.fromisocalendar(year, week, 1)  # raises for week 53 of a 52-week year
    return year, week


def week_bounds(text: str) -> tuple[datetime, datetime]:
    year, week = parse_week(text)
    monday = date.fromisocalendar(year, week, 1)
    start = datetime(monday.year, monday.month, monday.day, tzinfo=UTC)
    return start, start + timedelta(days=7)


def week_of(moment: datetime) -> str:
    year, week, _ = moment.astimezone(UTC).isocalendar()
    return f"{year}-W{week:02d}"


def previous_weeks(text: str, count: int) -> list[str]:
    """``count`` weeks ending with ``text``, oldest first."""
    start, _ = week_bounds(text)
    return [week_of(start - timedelta(weeks=k)) for k in range(count - 1, -1, -1)]
