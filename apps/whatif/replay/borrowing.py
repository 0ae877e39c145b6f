"""Pure: each ClusterQueue's nominal GPUs per flavor, and the GPU-time it runs above them.

Borrowing is Kueue's notion per ClusterQueue and flavor: usage above the queue's
own nominal quota, taken from its cohort. ``BorrowMeter`` integrates that excess
over the replay (GPU-ms, clipped to the window) as runs start and end, and books
it to the team that owns the queue (its ``quartermaster.io/team`` label); a shared
queue has no team, so its borrowing is nobody's.
"""

from __future__ import annotations

from collections import defaultdict

from apps.queues.kueue import TEAM_LABEL
from apps.queues.quantity import parse_units
from apps.whatif.replay.trace import Window, is_gpu


def nominal_gpus(objects: list[dict]) -> dict[str, dict[str, float]]:
    """ClusterQueue name → flavor → nominal GPUs (every GPU resource of the flavor summed)."""
    out: dict[str, dict[str, float]] = {}
    for obj in objects:
        if obj.get("kind") != "ClusterQueue":
            continue
        flavors = out.setdefault(obj["metadata"]["name"], {})
        for group in obj.get("spec", {}).get("resourceGroups") or []:
            for flavor in group.get("flavors") or []:
                gpus = sum(
                    float(parse_units(r.get("nominalQuota") or "0"))
                    for r in flavor.get("resources") or []
                    if is_gpu(r["name"])
                )
                flavors[flavor["name"]] = flavors.get(flavor["name"], 0.0) + gpus
    return out


def queue_teams(objects: list[dict]) -> dict[str, str]:
    """ClusterQueue name → the team owning it (shared queues are left out)."""
    return {
        obj["metadata"]["name"]: team
        for obj in objects
        if obj.get("kind") == "ClusterQueue"
        and (team := (obj["metadata"].get("labels") or {}).get(TEAM_LABEL))
    }


def team_nominal_gpus(objects: list[dict]) -> dict[str, dict[str, float]]:
    """Team → flavor → nominal GPUs, summed over the team's own queues."""
    teams, out = queue_teams(objects), {}
    for queue, flavors in nominal_gpus(objects).items():
        if queue not in teams:
            continue
        mine = out.setdefault(teams[queue], {})
        for flavor, gpus in flavors.items():
            mine[flavor] = mine.get(flavor, 0.0) + gpus
    return out


class BorrowMeter:
    """Running GPUs per (ClusterQueue, flavor), and the GPU-ms above nominal so far."""

    def __init__(self, objects: list[dict], window: Window):
        self.nominal = nominal_gpus(objects)
        self.teams = queue_teams(objects)
        self.window = window
        self.running: dict[tuple[str, str], float] = defaultdict(float)
        self.since: dict[tuple[str, str], int] = {}
        self.borrowed_ms: dict[str, dict[str, float]] = {}

    def change(self, at: int, queue: str, flavor: str, gpus: float) -> None:
        """``gpus`` more (or, negative, fewer) GPUs run in ``queue`` on ``flavor`` from ``at``."""
        cell = (queue, flavor)
        self._settle(cell, at)
        self.running[cell] += gpus

    def close(self, at: int) -> None:
        for cell in list(self.running):
            self._settle(cell, at)

    def _settle(self, cell: tuple[str, str], at: int) -> None:
        last, self.since[cell] = self.since.get(cell, at), at
        queue, flavor = cell
        excess = self.running[cell] - self.nominal.get(queue, {}).get(flavor, 0.0)
        inside = min(at, self.window.end_ms) - max(last, self.window.start_ms)
        team = self.teams.get(queue)
        if excess > 0 and inside > 0 and team:
            per_flavor = self.borrowed_ms.setdefault(team, {})
            per_flavor[flavor] = per_flavor.get(flavor, 0.0) + excess * inside
