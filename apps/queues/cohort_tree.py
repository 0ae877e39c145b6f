"""Pure: the cohort tree with its quotas as a Plotly treemap (drawn by static/js/charts.js).

Root cohorts hold child cohorts, which hold ClusterQueues (teams' queues and shared
ones such as the notebook pool); a queue outside any cohort stands on its own. Boxes
are sized by nominal GPUs, a cohort by the sum of its subtree. Every box says in text
what it is and its GPUs per flavor, so the picture reads without colour.

GPUs are the quotas of a ``…/gpu`` resource (``nvidia.com/gpu``, ``amd.com/gpu``):
MIG slices and CPU are other units and would make the sizes meaningless if added in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from apps.queues.kueue import PolicyState
from apps.queues.quantity import format_units, parse_units
from core.charts import MARGIN, empty_unless_drawn

GpusByFlavor = dict[str, Decimal]


@dataclass(frozen=True)
class TreeNode:
    id: str
    label: str
    parent: str  # "" for a top-level box
    gpus: Decimal
    hover: str


def is_gpu(resource: str) -> bool:
    return resource.rpartition("/")[2] == "gpu" and "/" in resource


def queue_gpus(queue: dict) -> GpusByFlavor:
    """Nominal GPUs per flavor, in the queue's flavor order."""
    gpus: GpusByFlavor = {}
    for quota in queue["quotas"]:
        if is_gpu(quota["resource"]):
            flavor = quota["flavor"]
            gpus[flavor] = gpus.get(flavor, Decimal(0)) + parse_units(quota["nominal"])
    return gpus


def describe(gpus: GpusByFlavor) -> str:
    """``h100 8, a100 8``; ``no GPUs`` when there are none."""
    return ", ".join(f"{f} {format_units(n)}" for f, n in gpus.items()) or "no GPUs"


def _add(total: GpusByFlavor, more: GpusByFlavor) -> None:
    for flavor, amount in more.items():
        total[flavor] = total.get(flavor, Decimal(0)) + amount


def _quota_line(quota: dict) -> str:
    borrowing = quota.get("borrowing_limit")
    lending = quota.get("lending_limit")
    return (
        f"{quota['flavor']}: nominal {quota['nominal']}, "
        f"borrowing limit {'unlimited' if borrowing in (None, '') else borrowing}, "
        f"lending limit {'all' if lending in (None, '') else lending}"
    )


def queue_node(queue: dict) -> TreeNode:
    gpus = queue_gpus(queue)
    owner = f"team {queue['team']}" if queue.get("team") else "shared"
    lines = [f"ClusterQueue {queue['name']} ({owner})"]
    lines += [_quota_line(q) for q in queue["quotas"] if is_gpu(q["resource"])]
    return TreeNode(
        id=f"queue:{queue['name']}",
        label=f"{queue['name']}{'' if queue.get('team') else ' (shared)'} · {describe(gpus)}",
        parent=f"cohort:{queue['cohort']}" if queue.get("cohort") else "",
        gpus=sum(gpus.values(), Decimal(0)),
        hover="<br>".join(lines),
    )


def tree_nodes(cohorts: list[dict], queues: list[dict]) -> list[TreeNode]:
    """Cohorts (parents before children) then queues, each with its subtree's GPUs."""
    children: dict[str | None, list[str]] = {}
    for cohort in cohorts:
        children.setdefault(cohort["parent"], []).append(cohort["name"])
    members: dict[str, list[dict]] = {}
    for queue in queues:
        members.setdefault(queue.get("cohort") or "", []).append(queue)

    totals: dict[str, GpusByFlavor] = {}

    def subtree(name: str) -> GpusByFlavor:
        total: GpusByFlavor = {}
        for queue in members.get(name, []):
            _add(total, queue_gpus(queue))
        for child in children.get(name, []):
            _add(total, subtree(child))
        totals[name] = total
        return total

    order: list[dict] = []
    for root in children.get(None, []):
        subtree(root)
        order += _preorder(root, children, {c["name"]: c for c in cohorts})
    nodes = [_cohort_node(c, totals[c["name"]], members, children) for c in order]
    return nodes + [queue_node(q) for q in queues]


def _preorder(name: str, children: dict, by_name: dict[str, dict]) -> list[dict]:
    found = [by_name[name]]
    for child in children.get(name, []):
        found += _preorder(child, children, by_name)
    return found


def _cohort_node(cohort: dict, gpus: GpusByFlavor, members: dict, children: dict) -> TreeNode:
    name = cohort["name"]
    where = f"under {cohort['parent']}" if cohort["parent"] else "root cohort"
    hover = (
        f"cohort {name} ({where})<br>nominal GPUs in its subtree: {describe(gpus)}<br>"
        f"{len(members.get(name, []))} ClusterQueues, {len(children.get(name, []))} child cohorts"
    )
    return TreeNode(
        id=f"cohort:{name}",
        label=f"cohort {name} · {describe(gpus)}",
        parent=f"cohort:{cohort['parent']}" if cohort["parent"] else "",
        gpus=sum(gpus.values(), Decimal(0)),
        hover=hover,
    )


def trees_holding(
    cohorts: list[dict], queues: list[dict], names: Iterable[str]
) -> tuple[list[dict], list[dict]]:
    """Only the whole trees (from their root cohort down) holding the queues ``names``;
    such a queue outside any cohort comes alone."""
    parent_of = {c["name"]: c["parent"] for c in cohorts}

    def root(cohort: str) -> str:
        while parent_of.get(cohort):
            cohort = parent_of[cohort]
        return cohort

    wanted = set(names)
    roots = {root(q["cohort"]) for q in queues if q["name"] in wanted and q.get("cohort")}
    kept = [c for c in cohorts if root(c["name"]) in roots]
    kept_names = {c["name"] for c in kept}
    kept_queues = [
        q
        for q in queues
        if (q.get("cohort") in kept_names) or (not q.get("cohort") and q["name"] in wanted)
    ]
    return kept, kept_queues


def treemap_spec(nodes: list[TreeNode], empty_message: str) -> dict:
    trace = {
        "type": "treemap",
        "ids": [n.id for n in nodes],
        "labels": [n.label for n in nodes],
        "parents": [n.parent for n in nodes],
        "values": [float(n.gpus) for n in nodes],
        "hovertext": [n.hover for n in nodes],
        "hoverinfo": "text",
        "textinfo": "label",
        "textfont": {"size": 14},
        "branchvalues": "total",
        "marker": {"line": {"width": 2, "color": "#ffffff"}},
    }
    layout = {"margin": {**MARGIN, "l": 10, "r": 10, "b": 10}, "height": 420}
    return empty_unless_drawn({"data": [trace], "layout": layout}, empty_message)


def whole_tree(state: PolicyState) -> dict:
    """Every cohort and ClusterQueue, for the platform admin."""
    return treemap_spec(tree_nodes(state.cohorts, state.queues), "No GPU quota in any queue yet.")


def team_tree(state: PolicyState, team: str) -> dict:
    """The trees holding ``team``'s queues, with every queue in them: quota policy is
    readable by every signed-in user (``apps.queues.querysets``), as on the overview."""
    return teams_tree(state, {team}, "No GPU quota in the cohort tree of this team's queues yet.")


def teams_tree(state: PolicyState, teams: set[str], empty_message: str) -> dict:
    """The trees holding the queues of any of ``teams``, with every queue in them."""
    names = [q["name"] for q in state.queues if q.get("team") in teams]
    cohorts, queues = trees_holding(state.cohorts, state.queues, names)
    return treemap_spec(tree_nodes(cohorts, queues), empty_message)
