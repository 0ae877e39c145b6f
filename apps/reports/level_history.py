"""Reads of the ``LevelChange`` rollup: each team's GPUs in use and queue over a range.

Two aggregate queries, both summed by the database: every change before the range
(the levels at its start) and the changes within it, per team and step. The levels
at each step's end are then running sums of a few hundred numbers per team.
"""

from __future__ import annotations

from itertools import accumulate

from django.db.models import F, IntegerField, Sum
from django.db.models.functions import Cast

from apps.reports.compute.level_changes import LEVELS
from apps.reports.models import LevelChange
from apps.reports.ranges import Range
from core.dates import iso_z

_SUMS = {f"sum_{level}": Sum(level) for level in LEVELS}


def level_series(chosen: Range, teams: set[str] | None) -> dict:
    """The series of ``chosen`` for ``teams`` (None: every team, the admins' scope)."""
    rows = (
        LevelChange.objects.all()
        if teams is None
        else LevelChange.objects.filter(team_slug__in=teams)
    )
    before = rows.filter(minute__lt=chosen.start).values("team_slug").annotate(**_SUMS)
    step = Cast((F("minute") - chosen.start) / chosen.step, IntegerField()) + 1
    within = (
        rows.filter(minute__gte=chosen.start, minute__lt=chosen.end)
        .annotate(step=step)
        .values("team_slug", "step")
        .annotate(**_SUMS)
    )
    return {
        "range": chosen.name,
        "from": iso_z(chosen.times()[0]),
        "to": iso_z(chosen.times()[-1]),
        "step_seconds": chosen.step * 60,
        "scope": "cluster" if teams is None else "teams",
        "times": [iso_z(t) for t in chosen.times()],
        "teams": running_levels(chosen.steps, teams or (), before, within),
    }


def running_levels(steps: int, teams, before, within) -> list[dict]:
    """Pure: each team's levels at the start and at each step's end, from the sums of
    the changes before the range (``before``) and within each step (``within``, step
    1 being the first)."""
    deltas: dict[str, list[list[int]]] = {}

    def team_rows(team: str) -> list[list[int]]:
        return deltas.setdefault(team, [[0] * (steps + 1) for _ in LEVELS])

    for team in teams:
        team_rows(team)
    for row in before:
        for i, level in enumerate(LEVELS):
            team_rows(row["team_slug"])[i][0] += row[f"sum_{level}"]
    for row in within:
        for i, level in enumerate(LEVELS):
            team_rows(row["team_slug"])[i][row["step"]] += row[f"sum_{level}"]
    return [
        {"team": team, **{level: list(accumulate(values[i])) for i, level in enumerate(LEVELS)}}
        for team, values in sorted(deltas.items())
    ]
