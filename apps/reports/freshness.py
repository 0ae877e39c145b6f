"""Pure: when a week's stored snapshot was built and when it is built next.

The current week is rebuilt every ``QM_REPORT_REBUILD_MINUTES`` (beat:
``build-current-week-report``); the week that just ended gets its final build on Monday
at ``FINAL_BUILD_HOUR`` UTC (beat: ``build-weekly-report``); older weeks are final.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from apps.reports.compute.weeks import week_bounds, week_of

# Monday, this hour UTC: the week before gets its final build (portal/schedule.py).
FINAL_BUILD_HOUR = 3


@dataclass(frozen=True)
class Stamp:
    built_at: datetime
    next_at: datetime | None  # None: final, no build is scheduled
    overdue: bool = False  # the next build should have run by now


def stamp(week: str, built_at: datetime, *, now: datetime, every: timedelta) -> Stamp:
    this_monday, _ = week_bounds(week_of(now))
    if week == week_of(now):
        next_at = built_at + every
    elif week == week_of(this_monday - timedelta(days=1)):
        final = this_monday + timedelta(hours=FINAL_BUILD_HOUR)
        next_at = final if built_at < final else None
    else:
        next_at = None
    return Stamp(built_at, next_at, overdue=next_at is not None and next_at < now)
