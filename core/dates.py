"""Dates as people read them, and as programs read them.

People (pages, messages, notifications): ISO 8601 to the minute, in the viewer's time
zone, zone shown: ``2026-12-02 10:31 UTC``. The zone is Django's current one:
``TIME_ZONE`` unless a request activated another (the place a per-user zone would plug
in), so the same instant never reads two ways.

Programs (the REST API, JSON downloads, webhooks): ISO 8601 in UTC to the second with
``Z``: ``2026-12-02T10:31:05Z`` (``iso_z``), whatever ``TIME_ZONE`` is.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from django.utils import timezone
from django.utils.dateparse import parse_datetime

ISO_Z = "%Y-%m-%dT%H:%M:%SZ"
MINUTES = "%Y-%m-%d %H:%M"
SECONDS = "%Y-%m-%d %H:%M:%S"


def zone_label(value: datetime) -> str:
    """The zone's abbreviation (``UTC``, ``CET``), or its offset when it has none."""
    name = value.tzname() or ""
    if name and name[0] not in "+-":
        return name
    offset = value.strftime("%z")  # +0530
    return "UTC" if offset in ("", "+0000") else f"{offset[:3]}:{offset[3:]}"


def iso_z(value: datetime | None) -> str | None:
    """``value`` in UTC as ``2026-12-02T10:31:05Z`` (seconds, no fraction); None stays None."""
    if value is None:
        return None
    if timezone.is_naive(value):
        value = value.replace(tzinfo=UTC)  # we store UTC; a naive value is one of ours
    return value.astimezone(UTC).strftime(ISO_Z)


def clamped(moment: datetime, *, earliest: datetime, latest: datetime) -> datetime:
    """``moment`` moved into [earliest, latest] (``latest`` wins if they cross)."""
    return min(max(moment, earliest), latest)


def format_when(value: datetime | date | str | None, *, seconds: bool = False) -> str:
    """``value`` as ``YYYY-MM-DD HH:MM[:SS] ZONE`` in the current zone; "" for None.

    A string is read as ISO 8601 (a cluster's ``2026-12-04T14:23:05Z``, the API's form);
    one that is no time is returned as it is."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        parsed = parse_datetime(value)
        if parsed is None:
            return value
        value = parsed
    if not isinstance(value, datetime):
        return value.isoformat()  # a calendar date has no zone
    if timezone.is_naive(value):
        value = value.replace(tzinfo=UTC)  # we store UTC; a naive value is one of ours
    local = timezone.localtime(value)
    return f"{local.strftime(SECONDS if seconds else MINUTES)} {zone_label(local)}"
