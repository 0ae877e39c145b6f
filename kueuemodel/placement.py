"""A tiny kube-scheduler: bind an admitted workload's pods to nodes.

Pods go first-fit onto nodes that carry the assigned flavor's nodeLabels and
the pod's nodeSelector, and whose NoSchedule/NoExecute taints are tolerated.
Placement is all-or-nothing per workload so a gang never half-starts.
"""

from __future__ import annotations

from . import model as m
from . import topology

Binding = tuple[str, dict[str, int]]


def place(
    wl: m.Workload,
    nodes: dict[str, m.Node],
    free: dict[str, dict[str, int]],
    flavors: dict[str, m.ResourceFlavor],
) -> tuple[list[Binding], str | None]:
    """Reserve node capacity for every pod, or nothing plus the reason why."""
    bindings: list[Binding] = []
    assignments = {psa.name: psa for psa in wl.admission.pod_sets} if wl.admission else {}
    for pod_set in wl.pod_sets:
        psa = assignments.get(pod_set.name)
        eligible = eligible_nodes(pod_set, psa, nodes, flavors)
        if pod_set.required_topology or pod_set.preferred_topology:
            eligible = _topology_nodes(pod_set, psa, eligible, free, flavors)
        for _ in range(pod_set.count):
            target = next((n for n in eligible if _has_room(free[n.name], pod_set.per_pod)), None)
            if target is None:
                release(bindings, free)
                return [], _explain(eligible, free, pod_set.per_pod)
            _take(free[target.name], pod_set.per_pod)
            bindings.append((target.name, pod_set.per_pod))
    return bindings, None


def _topology_nodes(
    pod_set: m.PodSet,
    psa: m.PodSetAssignment | None,
    eligible: list[m.Node],
    free: dict[str, dict[str, int]],
    flavors: dict[str, m.ResourceFlavor],
) -> list[m.Node]:
    """The eligible nodes TAS chose, roomiest first (none if nothing fits)."""
    chosen = topology.choose_nodes(pod_set, assigned_flavor(psa, flavors), eligible, free)
    by_name = {n.name: n for n in eligible}
    return [by_name[name] for name in chosen or ()]


def topology_assignments(
    wl: m.Workload,
    bindings: list[Binding],
    flavors: dict[str, m.ResourceFlavor],
    nodes: dict[str, m.Node],
) -> dict[str, dict]:
    """Pod set name → its ``topologyAssignment``, for the pod sets with a topology request
    on a flavor with a Topology (``bindings`` hold each pod set's pods in order)."""
    assignments = {psa.name: psa for psa in wl.admission.pod_sets} if wl.admission else {}
    found, start = {}, 0
    for pod_set in wl.pod_sets:
        bound = [node for node, _ in bindings[start : start + pod_set.count]]
        start += pod_set.count
        if not (pod_set.required_topology or pod_set.preferred_topology):
            continue
        flavor = assigned_flavor(assignments.get(pod_set.name), flavors)
        if (made := topology.assignment(flavor, bound, nodes)) is not None:
            found[pod_set.name] = made
    return found


def assigned_flavor(
    psa: m.PodSetAssignment | None, flavors: dict[str, m.ResourceFlavor]
) -> m.ResourceFlavor | None:
    """The pod set's flavor (TAS pod sets have one: the flavor of their topology)."""
    names = sorted(set(psa.flavors.values())) if psa else []
    return flavors.get(names[0]) if names else None


def eligible_nodes(
    pod_set: m.PodSet,
    psa: m.PodSetAssignment | None,
    nodes: dict[str, m.Node],
    flavors: dict[str, m.ResourceFlavor],
) -> list[m.Node]:
    labels = _required_labels(pod_set, psa, flavors)
    tolerations = pod_set.tolerations + _flavor_tolerations(psa, flavors)
    return [n for n in nodes.values() if _eligible(n, labels, tolerations)]


def release(bindings: list[Binding], free: dict[str, dict[str, int]]) -> None:
    for node_name, requests in bindings:
        room = free[node_name]
        for res, amount in requests.items():
            room[res] = room.get(res, 0) + amount


def _required_labels(
    pod_set: m.PodSet, psa: m.PodSetAssignment | None, flavors: dict[str, m.ResourceFlavor]
) -> dict[str, str]:
    labels = dict(pod_set.node_selector)
    for flavor_name in set(psa.flavors.values()) if psa else ():
        flavor = flavors.get(flavor_name)
        if flavor:
            labels.update(flavor.node_labels)
    return labels


def _flavor_tolerations(
    psa: m.PodSetAssignment | None, flavors: dict[str, m.ResourceFlavor]
) -> tuple[m.Toleration, ...]:
    if not psa:
        return ()
    return tuple(
        t
        for name in set(psa.flavors.values())
        if name in flavors
        for t in flavors[name].tolerations
    )


def _eligible(node: m.Node, labels: dict[str, str], tolerations: tuple[m.Toleration, ...]) -> bool:
    if node.unschedulable or any(node.labels.get(k) != v for k, v in labels.items()):
        return False
    blocking = (t for t in node.taints if t.effect in ("NoSchedule", "NoExecute"))
    return all(any(tol.tolerates(taint) for tol in tolerations) for taint in blocking)


def _has_room(room: dict[str, int], requests: dict[str, int]) -> bool:
    return all(room.get(res, 0) >= amount for res, amount in requests.items() if amount)


def _take(room: dict[str, int], requests: dict[str, int]) -> None:
    for res, amount in requests.items():
        room[res] = room.get(res, 0) - amount


def _explain(
    eligible: list[m.Node], free: dict[str, dict[str, int]], requests: dict[str, int]
) -> str:
    """Name the first resource no eligible node has enough of, as a user would ask."""
    if not eligible:
        return "no node matches the flavor's node labels and tolerations"
    for res, amount in requests.items():
        if amount and all(free[n.name].get(res, 0) < amount for n in eligible):
            return f"no node has {_amount(amount)} free {res}"
    return "no node has room for all requested resources at once"


def _amount(milli: int) -> str:
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"
