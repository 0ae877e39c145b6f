"""Pure: the hours a stored report covers, and how pages say so.

A report of the week in progress is computed up to its build (``period`` in the
report, from ``WeekInput.period``); snapshots stored without one cover the whole week.
"""

from __future__ import annotations

WEEK_HOURS = 168.0


def of(report: dict) -> dict:
    """``report``'s period: covered hours, the week's hours, whether it is in progress."""
    return report.get("period") or {
        "covered_hours": WEEK_HOURS,
        "week_hours": WEEK_HOURS,
        "in_progress": False,
    }


def so_far(report: dict) -> str:
    """``so far (60 h of 168)`` for a week in progress; "" for a finished week."""
    period = of(report)
    if not period["in_progress"]:
        return ""
    return f"so far ({period['covered_hours']:.0f} h of {period['week_hours']:.0f})"
