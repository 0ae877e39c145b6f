"""Plans as YAML diffs, for ``manage.py reconcile --dry-run`` and the edit preview."""

from __future__ import annotations

import difflib

import yaml

from apps.queues.reconcile import plan as p


def owned_view(obj: dict | None, version: str) -> dict:
    """Only the fields we manage, nested again, with the object's identity."""
    if obj is None:
        return {}
    view: dict = {"kind": obj["kind"], "metadata": {"name": obj["metadata"]["name"]}}
    if obj["metadata"].get("namespace"):
        view["metadata"]["namespace"] = obj["metadata"]["namespace"]
    for path, value in sorted(p.project(obj, version).items()):
        node = view
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = value
    return view


def _dump(view: dict) -> list[str]:
    if not view:
        return []
    return yaml.safe_dump(view, sort_keys=False, default_flow_style=False).splitlines()


def action_diff(action: p.Action, version: str) -> str:
    """Unified diff of one action; empty when it writes nothing."""
    if not action.writes:
        return ""
    before = owned_view(action.observed, version) if action.verb != p.CREATE else {}
    after = {} if action.verb == p.DELETE else _after(action, version)
    where = f"{action.namespace}/{action.name}" if action.namespace else action.name
    label = f"{action.kind} {where}"
    lines = difflib.unified_diff(
        _dump(before), _dump(after), f"cluster: {label}", f"{action.verb}: {label}", lineterm=""
    )
    return "\n".join(lines)


def _after(action: p.Action, version: str) -> dict:
    if action.desired is not None:
        return owned_view(action.desired, version)
    # A hold or a namespace release patches the live object.
    view = owned_view(action.observed, version)
    for change in action.changes:
        node = view
        for part in change.path[:-1]:
            node = node.setdefault(part, {})
        if change.desired is None:
            node.pop(change.path[-1], None)
        else:
            node[change.path[-1]] = change.desired
    return view


def plan_diff(actions: list[p.Action], version: str) -> str:
    diffs = [action_diff(a, version) for a in actions]
    return "\n".join(d for d in diffs if d)
