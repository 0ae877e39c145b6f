"""Rule "add a borrowing limit where one team crowds out the rest" (issue 30). Pure.

Over the last 2–4 finished weeks (as ``suggestions.finished_weeks`` picks them), a queue
took at least ``BORROWED_SHARE_AT_LEAST`` of all GPU-hours lent within its cohort on a
flavor in every week, while in that same week a queue of another team of the cohort
waited: p95 wait at least ``OTHER_P95_WAIT_AT_LEAST_S``. The stored report has no idle
lendable GPU-hours, so "the cohort's lendable GPU-hours" is read as what was actually
lent (the report's ``fairness.queues[].lent_gpu_hours`` summed over the cohort).

The proposed ``borrowingLimit`` is the median over those weeks of the GPUs it borrowed
on average (borrowed GPU-hours ÷ the week's covered hours), rounded up: what it usually
took stays, the bursts that crowded the others out do not. No suggestion when the queue's
current limit is already at or below that.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from apps.whatif.suggestions import MIN_WEEKS, OverWeeks, quota_draft

BORROWED_SHARE_AT_LEAST = 0.6
OTHER_P95_WAIT_AT_LEAST_S = 3600.0
ADD_BORROWING_LIMIT = "add-borrowing-limit"


@dataclass(frozen=True)
class CrowdedWeek:
    """One week: the queue's borrowed GPU-hours, all lent in its cohort, who waited."""

    week: str
    borrowed_gpu_hours: float
    cohort_lent_gpu_hours: float
    hours: float
    waited_queue: str
    waited_p95_s: float

    @property
    def borrowed_share(self) -> float:
        return self.borrowed_gpu_hours / self.cohort_lent_gpu_hours

    @property
    def borrowed_gpus(self) -> float:
        return self.borrowed_gpu_hours / self.hours


@dataclass(frozen=True)
class BorrowingLimitSuggestion(OverWeeks):
    """A draft ``borrowingLimit`` on one queue's GPU quota on one flavor, with its evidence."""

    team: str
    queue: str
    flavor: str
    cohort: str
    current_limit: float | None
    proposed_limit: int
    weeks: tuple[CrowdedWeek, ...]
    kind: str = ADD_BORROWING_LIMIT

    @property
    def title(self) -> str:
        now = "no limit" if self.current_limit is None else f"{self.current_limit:g}"
        return (
            f"Limit borrowing of {self.queue} on {self.flavor}: {now} → {self.proposed_limit} GPUs"
        )

    def evidence(self) -> dict:
        return {
            "summary": (
                f"Team {self.team} took most of what cohort {self.cohort} lent while other "
                f"teams waited; it borrowed a median {self.proposed_limit} GPUs (rounded up)."
            ),
            "facts": {
                "team": self.team,
                "cohort": self.cohort,
                "current_limit": self.current_limit,
                "proposed_limit": self.proposed_limit,
            },
            "columns": [
                "Week",
                "Borrowed GPU-hours",
                "Lent in the cohort",
                "Share",
                "Borrowed GPUs (mean)",
                "Waiting meanwhile (p95)",
            ],  # fmt: skip
            "rows": [
                [
                    w.week,
                    f"{w.borrowed_gpu_hours:.1f}",
                    f"{w.cohort_lent_gpu_hours:.1f}",
                    f"{round(100 * w.borrowed_share)} %",
                    f"{w.borrowed_gpus:.1f}",
                    f"{w.waited_queue} ({w.waited_p95_s / 3600:.1f} h)",
                ]
                for w in self.weeks
            ],
        }

    def draft(self, saved: dict) -> dict:
        return quota_draft(saved, self.flavor, {"borrowing_limit": str(self.proposed_limit)})


def borrowing_limits(
    weeks: list[tuple[str, dict]],
    cohort_of: dict[str, str | None],
    limits: dict[tuple[str, str], float | None],
) -> list[BorrowingLimitSuggestion]:
    """Every borrowing limit the rule proposes over ``weeks`` (finished, newest first).

    ``cohort_of``: queue → its cohort now (None: none); ``limits``: (queue, flavor) → its
    GPU ``borrowingLimit`` now (None: unlimited).
    """
    if len(weeks) < MIN_WEEKS:
        return []
    found = []
    for row in sorted(weeks[0][1]["fairness"]["queues"], key=lambda r: (r["queue"], r["flavor"])):
        queue, flavor, cohort = row["queue"], row["flavor"], cohort_of.get(row["queue"])
        if not cohort or not row["team"]:
            continue
        history = [_crowded(week, data, row, cohort, cohort_of) for week, data in weeks]
        if not all(history):
            continue
        proposed = math.ceil(statistics.median(w.borrowed_gpus for w in history))
        current = limits.get((queue, flavor))
        if current is not None and current <= proposed:
            continue
        found.append(
            BorrowingLimitSuggestion(
                row["team"], queue, flavor, cohort, current, proposed, tuple(history)
            )
        )
    return found


def _crowded(week: str, data: dict, row: dict, cohort: str, cohort_of) -> CrowdedWeek | None:
    """The week's evidence when ``row``'s queue crowded out the cohort; else None."""
    mates = [
        r
        for r in data["fairness"]["queues"]
        if r["flavor"] == row["flavor"] and cohort_of.get(r["queue"]) == cohort
    ]
    mine = [r for r in mates if r["queue"] == row["queue"]]
    lent = sum(r["lent_gpu_hours"] for r in mates)
    hours = data["period"]["covered_hours"]
    if not mine or lent <= 0 or not hours:
        return None
    borrowed = mine[0]["borrowed_gpu_hours"]
    if borrowed < BORROWED_SHARE_AT_LEAST * lent:
        return None
    others = {r["queue"] for r in mates if r["team"] and r["team"] != row["team"]}
    waits = [
        (w["p95"], w["key"])
        for w in data.get("waits") or []
        if w["dimension"] == "queue" and w["key"] in others and w.get("p95") is not None
    ]
    longest = max(waits, default=None)
    if longest is None or longest[0] < OTHER_P95_WAIT_AT_LEAST_S:
        return None
    return CrowdedWeek(week, borrowed, lent, hours, longest[1], longest[0])
