"""Does the outcome hinge on a hair? Nudge each weight ±10% and compare team rankings.

A policy whose ranking of teams (by p95 wait, or by received share) flips when
one team's weight moves by a tenth is a knife-edge: its predicted winners and
losers should not be trusted as given.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass

from apps.queues.quantity import parse_units

NUDGE = 0.10
NUDGES = ("+", "-")
# Rankings compare values rounded to these steps, so noise does not count as a flip.
WAIT_STEP_S = 60.0
SHARE_STEP = 0.005


def nudge_key(queue: str, sign: str) -> str:
    return f"nudge:{queue}:{sign}"


def parse_nudge_key(key: str) -> tuple[str, str]:
    _, queue, sign = key.split(":", 2)
    return queue, sign


def nudged_objects(objects: list[dict], queue: str, sign: str) -> list[dict]:
    """The policy with ClusterQueue ``queue``'s fair-sharing weight moved by ±10%."""
    factor = 1 + NUDGE if sign == "+" else 1 - NUDGE
    nudged = []
    for obj in objects:
        if obj.get("kind") == "ClusterQueue" and obj["metadata"]["name"] == queue:
            obj = copy.deepcopy(obj)
            fair = obj["spec"].setdefault("fairSharing", {})
            weight = float(parse_units(fair.get("weight", "1")))
            fair["weight"] = f"{round(weight * factor * 1000)}m"
        nudged.append(obj)
    return nudged


def cluster_queue_names(objects: list[dict]) -> list[str]:
    return sorted(o["metadata"]["name"] for o in objects if o.get("kind") == "ClusterQueue")


def ranking(metrics: dict[str, dict], field: str, step: float, *, descending: bool) -> list[str]:
    """Teams ordered by ``field`` (rounded to ``step``), ties by name."""

    def rank_value(team: str) -> float:
        value = metrics[team].get(field)
        value = 0.0 if value is None else round(value / step)
        return -value if descending else value

    return sorted(metrics, key=lambda team: (rank_value(team), team))


def rankings(metrics: dict[str, dict]) -> dict[str, list[str]]:
    return {
        "wait": ranking(metrics, "p95_wait_s", WAIT_STEP_S, descending=False),
        "share": ranking(metrics, "received_share", SHARE_STEP, descending=True),
    }


@dataclass(frozen=True)
class Flip:
    nudge: str
    ranking: str
    before: list[str]
    after: list[str]


@dataclass(frozen=True)
class Sensitivity:
    checked: int
    flips: list[Flip]

    @property
    def knife_edge(self) -> bool:
        return bool(self.flips)

    def as_dict(self) -> dict:
        return {
            "checked": self.checked,
            "knife_edge": self.knife_edge,
            "flips": [asdict(f) for f in self.flips],
        }


def sensitivity(base: dict[str, dict], nudged: dict[str, dict[str, dict]]) -> Sensitivity:
    """Compare the base ranking with each nudged replay's (``nudge key → team metrics``)."""
    reference = rankings(base)
    flips = []
    for key in sorted(nudged):
        for name, order in rankings(nudged[key]).items():
            if order != reference[name]:
                flips.append(Flip(key, name, reference[name], order))
    return Sensitivity(checked=len(nudged), flips=flips)
