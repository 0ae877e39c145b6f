"""Rule "rebalance the fair-sharing weight of a starving team" (issue 30). Pure.

Only where Kueue's fair sharing is on (weights do nothing otherwise). Over the last 2–4
finished weeks, a team received a share of the GPU-hours at least
``SHARE_GAP_AT_LEAST`` (10 points) below its entitled share (its nominal GPUs ÷ all
nominal GPUs; the report's ``fairness.teams``) in every week, and its p95 wait was at
least ``TEAM_P95_WAIT_AT_LEAST_S`` (1 hour) each of those weeks: it wanted more and
waited, rather than asked for less.

The proposed weight is its queue's weight × mean entitled share ÷ mean received share,
at most ``WEIGHT_FACTOR_CAP`` × the weight, rounded up to one decimal. Only a team with
one queue: which of several to raise is the lead's call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from apps.whatif.suggestions import MIN_WEEKS, OverWeeks

SHARE_GAP_AT_LEAST = 0.10
TEAM_P95_WAIT_AT_LEAST_S = 3600.0
WEIGHT_FACTOR_CAP = 2.0
RAISE_STARVING_WEIGHT = "raise-starving-weight"


@dataclass(frozen=True)
class StarvedWeek:
    week: str
    entitled_share: float
    received_share: float
    p95_wait_s: float


@dataclass(frozen=True)
class WeightSuggestion(OverWeeks):
    """A draft ``fair_weight`` for a starving team's one queue, with its evidence."""

    team: str
    queue: str
    current_weight: float
    proposed_weight: float
    weeks: tuple[StarvedWeek, ...]
    kind: str = RAISE_STARVING_WEIGHT
    flavor: str = ""  # every flavor: a weight is the queue's, not a quota's

    @property
    def title(self) -> str:
        return (
            f"Raise the fair-sharing weight of {self.queue}: "
            f"{self.current_weight:g} → {self.proposed_weight:g}"
        )

    def evidence(self) -> dict:
        return {
            "summary": (
                f"Team {self.team} received less than its entitled share every week while "
                f"it waited (weight at most ×{WEIGHT_FACTOR_CAP:g})."
            ),
            "facts": {
                "team": self.team,
                "current_weight": self.current_weight,
                "proposed_weight": self.proposed_weight,
            },
            "columns": ["Week", "Entitled share", "Received share", "Gap", "p95 wait"],
            "rows": [
                [
                    w.week,
                    f"{100 * w.entitled_share:.1f} %",
                    f"{100 * w.received_share:.1f} %",
                    f"{100 * (w.entitled_share - w.received_share):.1f} points",
                    f"{w.p95_wait_s / 3600:.1f} h",
                ]
                for w in self.weeks
            ],
        }

    def draft(self, saved: dict) -> dict:
        return {"fair_weight": f"{self.proposed_weight:g}"}


def starving_weights(
    weeks: list[tuple[str, dict]], weights: dict[str, list[tuple[str, float]]], *, fair: bool
) -> list[WeightSuggestion]:
    """Every weight the rule raises; ``weights``: team → its queues' (name, weight) now."""
    if not fair or len(weeks) < MIN_WEEKS:
        return []
    found = []
    for team in sorted(t["team"] for t in weeks[0][1]["fairness"]["teams"]):
        history = [_starved(week, data, team) for week, data in weeks]
        queues = weights.get(team) or []
        if not all(history) or len(queues) != 1:
            continue
        (queue, weight) = queues[0]
        entitled = sum(w.entitled_share for w in history) / len(history)
        received = sum(w.received_share for w in history) / len(history)
        factor = min(WEIGHT_FACTOR_CAP, entitled / received) if received else WEIGHT_FACTOR_CAP
        proposed = math.ceil(round(weight * factor * 10, 6)) / 10
        if proposed > weight:
            found.append(WeightSuggestion(team, queue, weight, proposed, tuple(history)))
    return found


def _starved(week: str, data: dict, team: str) -> StarvedWeek | None:
    row = next((t for t in data["fairness"]["teams"] if t["team"] == team), None)
    if row is None or row["entitled_share"] is None or row["received_share"] is None:
        return None
    if row["entitled_share"] - row["received_share"] < SHARE_GAP_AT_LEAST - 1e-9:
        return None
    waits = data.get("waits") or []
    p95 = next((w["p95"] for w in waits if w["dimension"] == "team" and w["key"] == team), None)
    if p95 is None or p95 < TEAM_P95_WAIT_AT_LEAST_S:
        return None
    return StarvedWeek(week, row["entitled_share"], row["received_share"], p95)
