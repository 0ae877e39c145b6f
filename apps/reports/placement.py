"""Pure: kube-state-metrics placement series → ``records.Placement`` per flavor.

Nodes belong to the flavors whose node labels they carry (``kube_node_labels``,
see ``nodeprices.selects``); an unschedulable pod belongs to the flavor Kueue
admitted its Workload to at that moment (``attribution.Attributor.locate``). Pods
of Workloads the history does not know are left out.
"""

from __future__ import annotations

from collections import defaultdict

from apps.reports.attribution import Attributor
from apps.reports.compute.records import Placement
from apps.reports.nodeprices import selects


def build(
    results: dict,
    attributor: Attributor,
    flavors: dict[str, dict[str, str]],
    node_labels: dict[str, dict[str, str]],
    step: float,
) -> Placement | None:
    """None when Prometheus has no allocatable GPUs (kube-state-metrics missing) or no
    GPU node carries a flavor's node labels (``kube_node_labels`` missing)."""
    if not results.get("allocatable"):
        return None
    free: dict[tuple[str, str], dict[float, float]] = defaultdict(lambda: defaultdict(float))
    allocatable: dict[tuple[str, str], dict[float, float]] = defaultdict(lambda: defaultdict(float))
    for name, sign in (("allocatable", 1.0), ("bound", -1.0)):
        for labels, points in results.get(name, ()):
            node, resource = labels.get("node", ""), labels.get("resource", "")
            for flavor in (
                f for f, want in flavors.items() if selects(want, node_labels.get(node, {}))
            ):
                for t, v in points:
                    free[(flavor, resource)][t] += sign * v
                    if sign > 0:
                        allocatable[(flavor, resource)][t] += v
    if not free:
        return None  # no GPU node carries any flavor's labels: nothing to compare with
    blocked = []
    for labels, points in results.get("unschedulable", ()):
        for t, units in points:
            hit = attributor.locate(labels.get("namespace", ""), labels.get("pod", ""), t)
            if hit:
                blocked.append((t, hit[1], labels.get("resource", ""), units))
    return Placement(
        step=step,
        free={k: {t: max(0.0, v) for t, v in by_t.items()} for k, by_t in free.items()},
        capacity={k: max(by_t.values()) for k, by_t in allocatable.items()},
        blocked=blocked,
    )
