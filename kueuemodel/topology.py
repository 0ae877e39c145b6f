"""Topology-aware placement (Kueue TAS) of pod sets that require one domain.

A pod set annotated ``kueue.x-k8s.io/podset-required-topology: <node label key>``
on a flavor with a ``topologyName`` is admitted only when one domain of that level
(the nodes sharing a value of the label) has room for every pod. As Kueue's default
(BestFit) algorithm does, the domain chosen is the one that fits with the fewest
free pod slots, ties broken by name; inside it pods fill the roomiest nodes first.
Pure functions over the engine's nodes and free capacity.
"""

from __future__ import annotations

from . import model as m

REQUIRED_ANNOTATION = "kueue.x-k8s.io/podset-required-topology"
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
    """The nodes of the domain the pod set goes to, roomiest first; None if none fits.

    Only called for pod sets that require a topology level.
    """
    if flavor is None or not flavor.topology_name:
        return None
    key = pod_set.required_topology
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
    ranked = sorted(members, key=lambda n: (-slots(free[n.name], pod_set.per_pod), n.name))
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
        if pod_set.required_topology in node.labels:
            value = node.labels[pod_set.required_topology]
            rooms[value] = rooms.get(value, 0) + slots(free[node.name], pod_set.per_pod)
    best = max(rooms.values(), default=0)
    fit = f"doesn't allow to fit any of {pod_set.count}"
    if best:
        fit = f"allows to fit only {best} out of {pod_set.count}"
    return f'couldn\'t assign flavors to pod set {pod_set.name}: topology "{topology}" {fit} pod(s)'
