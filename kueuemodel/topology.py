"""Topology-aware placement (Kueue TAS) of pod sets that require or prefer one domain.

A pod set annotated ``kueue.x-k8s.io/podset-required-topology: <node label key>``
on a flavor with a ``topologyName`` is admitted only when one domain of that level
(the nodes sharing a value of the label) has room for every pod. As Kueue's default
(BestFit) algorithm does, the domain chosen is the one that fits with the fewest
free pod slots, ties broken by name; inside it pods fill the roomiest nodes first.
A pod set that only prefers a level (``podset-preferred-topology``) tries that level,
then each wider one, then spreads over the flavor's nodes.
Pure functions over the engine's nodes and free capacity.
"""

from __future__ import annotations

from . import model as m

REQUIRED_ANNOTATION = "kueue.x-k8s.io/podset-required-topology"
PREFERRED_ANNOTATION = "kueue.x-k8s.io/podset-preferred-topology"
# Kueue v0.17 has no reason of its own for this: the flavor assigner's generic one.
NO_FIT_REASON = "Pending"


def slots(room: dict[str, int], per_pod: dict[str, int]) -> int:
    """How many pods of ``per_pod`` fit in ``room``."""
    wanted = [(room.get(res, 0), amount) for res, amount in per_pod.items() if amount]
    return min((have // amount for have, amount in wanted), default=1_000_000)


def choose_nodes(
    pod_set: m.PodSet,
    flavor: m.ResourceFlavor | None,
    eligible: list[m.Node],
    free: dict[str, dict[str, int]],
) -> list[str] | None:
    """The nodes the pod set goes to, roomiest first; None if none fits.

    Required: one domain of the level, or nothing. Preferred: one domain of the level,
    else of the next wider level, and so on; else spread over the flavor's nodes (as Kueue
    admits a preferred pod set that fits in no single domain of the widest level).
    Only called for pod sets with a topology request.
    """
    if pod_set.required_topology:
        if flavor is None or not flavor.topology_name:
            return None
        return _one_domain(pod_set, pod_set.required_topology, eligible, free)
    for key in levels_upward(flavor, pod_set.preferred_topology):
        if (chosen := _one_domain(pod_set, key, eligible, free)) is not None:
            return chosen
    return _anywhere(pod_set, eligible, free)


def levels_upward(flavor: m.ResourceFlavor | None, key: str) -> list[str]:
    """``key`` and every wider level of the flavor's Topology, narrowest first."""
    levels = list(flavor.topology_levels) if flavor and flavor.topology_name else []
    if key not in levels:
        return [key] if flavor and flavor.topology_name else []
    return levels[: levels.index(key) + 1][::-1]


def _one_domain(
    pod_set: m.PodSet, key: str, eligible: list[m.Node], free: dict[str, dict[str, int]]
) -> list[str] | None:
    """BestFit: the fitting domain of level ``key`` with the fewest free pod slots."""
    domains: dict[str, list[m.Node]] = {}
    for node in eligible:
        if key in node.labels:
            domains.setdefault(node.labels[key], []).append(node)
    fitting = []
    for value, members in domains.items():
        room = sum(slots(free[n.name], pod_set.per_pod) for n in members)
        if room >= pod_set.count:
            fitting.append((room, value, members))
    if not fitting:
        return None
    _, _, members = min(fitting, key=lambda f: (f[0], f[1]))
    return _roomiest_first(pod_set, members, free)


def _anywhere(
    pod_set: m.PodSet, eligible: list[m.Node], free: dict[str, dict[str, int]]
) -> list[str] | None:
    room = sum(slots(free[n.name], pod_set.per_pod) for n in eligible)
    return _roomiest_first(pod_set, eligible, free) if room >= pod_set.count else None


def _roomiest_first(
    pod_set: m.PodSet, nodes: list[m.Node], free: dict[str, dict[str, int]]
) -> list[str]:
    ranked = sorted(nodes, key=lambda n: (-slots(free[n.name], pod_set.per_pod), n.name))
    return [n.name for n in ranked]


def no_fit_message(
    pod_set: m.PodSet,
    flavor: m.ResourceFlavor | None,
    eligible: list[m.Node],
    free: dict[str, dict[str, int]],
) -> str:
    """Kueue's words: how many of the pods the roomiest domain could take."""
    topology = flavor.topology_name if flavor else ""
    rooms: dict[str, int] = {}
    for node in eligible:
        # A preferred pod set may spread over every node: all of them are one "room".
        value = node.labels.get(pod_set.required_topology) if pod_set.required_topology else ""
        if value is not None:
            rooms[value] = rooms.get(value, 0) + slots(free[node.name], pod_set.per_pod)
    best = max(rooms.values(), default=0)
    fit = f"doesn't allow to fit any of {pod_set.count}"
    if best:
        fit = f"allows to fit only {best} out of {pod_set.count}"
    return f'couldn\'t assign flavors to pod set {pod_set.name}: topology "{topology}" {fit} pod(s)'


def assignment(
    flavor: m.ResourceFlavor | None, bound: list[str], nodes: dict[str, m.Node]
) -> dict | None:
    """A pod set's ``topologyAssignment`` as Kueue's v1beta2 writes it: the Topology's
    levels and one slice per node with its label values and pod count. ``bound`` is
    the node of each pod. None for a flavor without a Topology."""
    if flavor is None or not flavor.topology_levels:
        return None
    counts: dict[str, int] = {}
    for name in bound:
        counts[name] = counts.get(name, 0) + 1
    levels = list(flavor.topology_levels)
    slices = [
        {
            "domainCount": 1,
            "podCounts": {"universal": count},
            "valuesPerLevel": [{"universal": nodes[name].labels.get(lv, "")} for lv in levels],
        }
        for name, count in sorted(counts.items())
    ]
    return {"levels": levels, "slices": slices}
