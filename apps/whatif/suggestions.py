"""Policy suggestions from the stored weekly reports (issue 30, first rule only).

Pure functions: they read report dicts (``WeeklyReport.data``) and the peak GPUs each
team held per flavor, and return drafts with their evidence. Nothing here writes or
applies anything; a suggestion becomes a change only through the queue edit page.

Rule "lower an idle nominal quota": over the last 2–4 finished weeks (a week in
progress is left out: its idle share is not settled), a team's reserved quota on a
flavor sat idle at least ``IDLE_SHARE_AT_LEAST`` of its reserved GPU-hours in every
week. The proposed nominal is the peak GPUs the team held on that flavor in those weeks,
rounded up: never below the peak, so nothing that ran would have lacked its quota.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

IDLE_SHARE_AT_LEAST = 0.5
MIN_WEEKS = 2
MAX_WEEKS = 4
LOWER_IDLE_QUOTA = "lower-idle-quota"
GPU = "nvidia.com/gpu"


@dataclass(frozen=True)
class IdleWeek:
    """One week's evidence: reserved and idle GPU-hours of the team on the flavor."""

    week: str
    reserved_gpu_hours: float
    idle_gpu_hours: float

    @property
    def idle_share(self) -> float:
        return self.idle_gpu_hours / self.reserved_gpu_hours


class OverWeeks:
    """What every rule's suggestion shares: the per-week evidence in ``weeks``, newest first."""

    weeks: tuple

    @property
    def week_ids(self) -> list[str]:
        return [w.week for w in self.weeks]


@dataclass(frozen=True)
class Suggestion(OverWeeks):
    """A draft change of one queue's nominal quota on one flavor, with its evidence."""

    kind: str
    team: str
    queue: str
    flavor: str
    current_nominal: float
    proposed_nominal: int
    peak_gpus: float
    weeks: tuple[IdleWeek, ...]

    @property
    def title(self) -> str:
        return (
            f"Lower {self.queue} on {self.flavor}: "
            f"{self.current_nominal:g} → {self.proposed_nominal} GPUs"
        )

    def evidence(self) -> dict:
        """The figures that triggered it: numbers in ``facts``, a table per week to show."""
        return {
            "summary": f"Team {self.team}; peak held {self.peak_gpus:g} GPUs.",
            "facts": {
                "team": self.team,
                "peak_gpus": self.peak_gpus,
                "current_nominal": self.current_nominal,
                "proposed_nominal": self.proposed_nominal,
            },
            "columns": ["Week", "Reserved GPU-hours", "Idle GPU-hours", "Idle"],
            "rows": [
                [
                    w.week,
                    f"{w.reserved_gpu_hours:.1f}",
                    f"{w.idle_gpu_hours:.1f}",
                    f"{round(100 * w.idle_share)} %",
                ]
                for w in self.weeks
            ],
        }

    def draft(self, saved: dict) -> dict:
        """The proposal for the queue saved as ``saved`` (its snapshot)."""
        return quota_draft(saved, self.flavor, {"nominal": str(self.proposed_nominal)})


def quota_draft(saved: dict, flavor: str, changes: dict[str, str]) -> dict:
    """``saved``'s quotas with the GPU quota on ``flavor`` changed by ``changes``."""
    return {
        "quotas": [
            {**q, **changes} if q["flavor"] == flavor and q["resource"] == GPU else q
            for q in saved["quotas"]
        ]
    }


def finished_weeks(reports: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The newest ``MAX_WEEKS`` finished weeks of ``(week, data)`` pairs, newest first."""
    done = [(week, data) for week, data in reports if not data["period"]["in_progress"]]
    return sorted(done, key=lambda pair: pair[0], reverse=True)[:MAX_WEEKS]


def lower_idle_quotas(
    reports: list[tuple[str, dict]], peaks: dict[tuple[str, str], float]
) -> list[Suggestion]:
    """Every "lower nominal quota" the rule proposes; ``peaks``: (team, flavor) → peak GPUs."""
    weeks = finished_weeks(reports)
    if len(weeks) < MIN_WEEKS:
        return []
    idle = [_idle_rows(data) for _, data in weeks]
    newest_queues = weeks[0][1]["fairness"]["queues"]
    found = []
    for team, flavor in sorted(idle[0]):
        evidence = [rows.get((team, flavor)) for rows in idle]
        if not all(row and row["reserved_gpu_hours"] for row in evidence):
            continue
        history = tuple(
            IdleWeek(week, row["reserved_gpu_hours"], row["idle_gpu_hours"])
            for (week, _), row in zip(weeks, evidence, strict=True)
        )
        if any(w.idle_share < IDLE_SHARE_AT_LEAST for w in history):
            continue
        if suggestion := _lowered(team, flavor, newest_queues, peaks, history):
            found.append(suggestion)
    return found


def _idle_rows(data: dict) -> dict[tuple[str, str], dict]:
    return {
        (team["team"], row["flavor"]): row
        for team in data["cost"]["teams"]
        for row in team["idle_by_flavor"]
    }


def _lowered(team, flavor, queues, peaks, history) -> Suggestion | None:
    # Only a team with one queue on the flavor: which of several to lower is the lead's call.
    mine = [q for q in queues if q["team"] == team and q["flavor"] == flavor and q["nominal"]]
    if len(mine) != 1:
        return None
    peak = peaks.get((team, flavor), 0.0)
    proposed = math.ceil(peak)
    if proposed >= mine[0]["nominal"]:
        return None
    return Suggestion(
        kind=LOWER_IDLE_QUOTA,
        team=team,
        queue=mine[0]["queue"],
        flavor=flavor,
        current_nominal=mine[0]["nominal"],
        proposed_nominal=proposed,
        peak_gpus=peak,
        weeks=history,
    )


def peak_in_use(intervals: list[tuple[float, float, int]]) -> int:
    """The most GPUs held at once by ``(start, end, gpus)`` intervals (end exclusive)."""
    # A release sorts before an admission at the same instant: back-to-back runs don't add.
    events = sorted([(s, 1, g) for s, _, g in intervals] + [(e, 0, -g) for _, e, g in intervals])
    held = peak = 0
    for _, _, change in events:
        held += change
        peak = max(peak, held)
    return peak
