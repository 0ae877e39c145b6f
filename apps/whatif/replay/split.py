"""Plan a what-if's replays as one replay per (policy variant, cohort tree), done once each.

``plan_replays({"current": objects, "proposed": objects, ...})`` names the
replays to run: one per cohort tree of each variant, except where an earlier
variant has the very same objects for that tree (the draft left it alone), which
is then reused. The replays are independent, so they can go to different
workers; ``combine`` puts a variant's trees back together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apps.whatif.replay.engine import DEFAULT_GRID_MS, ReplayResult, replay
from apps.whatif.replay.partition import (
    Group,
    cohort_groups,
    group_objects,
    group_trace,
    signature,
)
from apps.whatif.replay.trace import TraceWorkload, Window

SEPARATOR = "@"


@dataclass(frozen=True)
class ReplayPlan:
    """``parts``: replay key → its objects; ``uses``: variant → the key of each tree."""

    groups: list[Group]
    parts: dict[str, list[dict[str, Any]]]
    uses: dict[str, list[str]]

    def keys_for(self, variant: str) -> list[str]:
        return self.uses[variant]


def part_key(variant: str, index: int) -> str:
    return f"{variant}{SEPARATOR}{index}"


def plan_replays(variants: dict[str, list[dict[str, Any]]]) -> ReplayPlan:
    """Variants in order of preference for reuse (the current policy first)."""
    groups = cohort_groups(variants.values())
    parts: dict[str, list[dict[str, Any]]] = {}
    uses: dict[str, list[str]] = {}
    by_signature: dict[str, str] = {}
    for variant, objects in variants.items():
        keys = []
        for index, group in enumerate(groups):
            part = group_objects(objects, group)
            key = by_signature.setdefault(signature(part), part_key(variant, index))
            parts.setdefault(key, part)
            keys.append(key)
        uses[variant] = keys
    return ReplayPlan(groups, parts, uses)


def replay_part(
    objects: list[dict[str, Any]],
    trace: list[TraceWorkload],
    window: Window,
    *,
    grid_ms: int = DEFAULT_GRID_MS,
) -> ReplayResult:
    """One tree's replay: only the workloads whose LocalQueue is in its objects."""
    return replay(objects, group_trace(objects, trace), window, grid_ms=grid_ms)


def combine(plan: ReplayPlan, variant: str, results: dict[str, ReplayResult], window: Window):
    """The variant's whole replay, from the results of its trees' replays (by key)."""
    return ReplayResult.merged(window, [results[key] for key in plan.keys_for(variant)])
