"""Cut a replay into cohort trees that cannot affect each other, and spot the ones a draft leaves alone.

Kueue shares quota only inside a cohort tree: two ClusterQueues whose cohorts
have different roots never lend, borrow or preempt across, and a replay has no
nodes to share. So replaying each tree on its own gives every workload exactly
the outcome of one big replay, the trees can run on different workers, and a
tree whose objects are the same under two policies needs replaying once.

Groups are taken over *every* policy compared, so a draft that moves a queue to
another cohort keeps the old and the new tree together.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from apps.whatif.replay.trace import TraceWorkload

Group = tuple[str, ...]
"""ClusterQueue names, sorted."""


def cohort_groups(policies: Iterable[list[dict[str, Any]]]) -> list[Group]:
    """ClusterQueues that share a cohort tree under any of ``policies``, smallest name first."""
    parent: dict[str, str] = {}

    def find(name: str) -> str:
        parent.setdefault(name, name)
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    def join(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    queues: set[str] = set()
    for objects in policies:
        for obj in objects:
            name, spec = _name(obj), obj.get("spec") or {}
            if obj.get("kind") == "ClusterQueue":
                queues.add(name)
                find(f"cq/{name}")
                if _cohort_of(spec):
                    join(f"cq/{name}", f"cohort/{_cohort_of(spec)}")
            elif obj.get("kind") == "Cohort" and _parent_of(spec):
                join(f"cohort/{name}", f"cohort/{_parent_of(spec)}")
    groups: dict[str, list[str]] = {}
    for name in sorted(queues):
        groups.setdefault(find(f"cq/{name}"), []).append(name)
    return sorted(tuple(members) for members in groups.values())


def group_objects(objects: list[dict[str, Any]], group: Group) -> list[dict[str, Any]]:
    """``objects`` restricted to one group: its queues, the cohorts above them, and
    every object that is not a queue (flavors, priority classes, namespaces, config)."""
    members = set(group)
    cohorts = _cohorts_above(objects, members)

    def belongs(obj: dict[str, Any]) -> bool:
        kind = obj.get("kind")
        if kind == "ClusterQueue":
            return _name(obj) in members
        if kind == "Cohort":
            return _name(obj) in cohorts
        if kind == "LocalQueue":
            return (obj.get("spec") or {}).get("clusterQueue") in members
        return True

    return [obj for obj in objects if belongs(obj)]


def _name(obj: dict[str, Any]) -> str:
    return (obj.get("metadata") or {}).get("name", "")  # Kueue's Configuration has none


def _cohorts_above(objects: list[dict[str, Any]], members: set[str]) -> set[str]:
    parents = {
        _name(o): _parent_of(o.get("spec") or {}) for o in objects if o.get("kind") == "Cohort"
    }
    found: set[str] = set()
    for obj in objects:
        if obj.get("kind") != "ClusterQueue" or _name(obj) not in members:
            continue
        cohort = _cohort_of(obj.get("spec") or {})
        while cohort and cohort not in found:
            found.add(cohort)
            cohort = parents.get(cohort)
    return found


def _cohort_of(spec: dict[str, Any]) -> str | None:
    return spec.get("cohortName") or spec.get("cohort")  # v1beta2, v1beta1


def _parent_of(spec: dict[str, Any]) -> str | None:
    return spec.get("parentName") or spec.get("parent")


def group_trace(objects: list[dict[str, Any]], trace: list[TraceWorkload]) -> list[TraceWorkload]:
    """The workloads whose LocalQueue is in ``objects`` (a ``group_objects`` result).

    A workload whose LocalQueue exists nowhere is in no group: it can never be
    admitted, under any policy, and counts as waiting all along.
    """
    local = {
        (o["metadata"].get("namespace"), o["metadata"]["name"])
        for o in objects
        if o.get("kind") == "LocalQueue"
    }
    return [wl for wl in trace if (wl.namespace, wl.queue) in local]


def signature(objects: list[dict[str, Any]]) -> str:
    """Equal for equal policies, whatever the order of objects and keys."""
    return json.dumps(sorted(json.dumps(o, sort_keys=True) for o in objects))
