"""A flavor's topology levels (Kueue Topology Aware Scheduling): parsing and rules.

Levels are an ordered list, widest first, of ``{"name": "rack", "node_label":
"example.com/rack"}``: the node label key whose value names the domain (the rack a
node is in) and the word the portal shows ("same rack"). Pure functions only.
"""

from __future__ import annotations

from typing import Any

from apps.queues.names import dns_label_error, label_key_error

MAX_LEVELS = 8
HOSTNAME_LABEL = "kubernetes.io/hostname"
EXAMPLE = "block=example.com/block, rack=example.com/rack, host=kubernetes.io/hostname"
FROZEN_FIELDS = ("topology_levels", "node_labels", "tolerations")


def level_problems(levels: Any, node_labels: dict) -> list[tuple[str, str]]:
    """Every broken rule as (field path, message naming the rule and an example)."""
    if not levels:
        return []
    if not isinstance(levels, list) or not all(isinstance(lv, dict) for lv in levels):
        return [("topology_levels", f"must be a list of {{name, node_label}}, e.g. {EXAMPLE}")]
    problems = []
    if len(levels) > MAX_LEVELS:
        problems.append(("topology_levels", f"at most {MAX_LEVELS} levels, e.g. {EXAMPLE}"))
    if not node_labels:
        problems.append(
            (
                "node_labels",
                "a flavor with topology levels needs at least one node label (Kueue rule), "
                "e.g. gpu.nvidia.com/class=h100",
            )
        )
    for index, level in enumerate(levels):
        problems += _one_level_problems(index, level, len(levels))
    for field in ("name", "node_label"):
        values = [level.get(field) for level in levels]
        for index, value in enumerate(values):
            if value in values[:index]:
                problems.append((f"topology_levels[{index}].{field}", f"{value!r} appears twice"))
    return problems


def _one_level_problems(index: int, level: dict, count: int) -> list[tuple[str, str]]:
    path = f"topology_levels[{index}]"
    problems = []
    if set(level) != {"name", "node_label"}:
        problems.append((path, "needs exactly name and node_label, e.g. rack=example.com/rack"))
    name, key = str(level.get("name") or ""), str(level.get("node_label") or "")
    if dns_label_error(name):
        problems.append((f"{path}.name", "a short lower-case word, e.g. rack"))
    if label_key_error(key):
        problems.append((f"{path}.node_label", "a node label key, e.g. example.com/rack"))
    if key == HOSTNAME_LABEL and index != count - 1:
        problems.append(
            (f"{path}.node_label", f"{HOSTNAME_LABEL} can only be the narrowest (last) level")
        )
    return problems


def frozen_problems(before: dict | None, after: dict) -> list[tuple[str, str]]:
    """Changes Kueue refuses once a flavor has a topology (its levels, node labels and
    tolerations are fixed in the cluster), as (field, message)."""
    if not before or not before.get("topology_levels"):
        return []
    return [
        (
            field,
            "cannot change once the flavor has topology levels (Kueue keeps a Topology's "
            "levels and its flavor's node labels and tolerations fixed); create a new "
            "flavor with the values you want",
        )
        for field in FROZEN_FIELDS
        if before.get(field) != after.get(field)
    ]
