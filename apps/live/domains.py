"""Free GPUs per topology domain, and the waiting workloads no domain has room for yet.

Pure functions over the cluster's own objects, as ``live.fetch`` slims them: Nodes
(name, labels, allocatable), the Pods bound to them (node, container requests) and
Workloads; plus the flavors' topology levels as the admin named them. Every Kubernetes
cluster serves these, so the figures mean the same on the real one and the simulated one.

A domain of a level is the nodes sharing the label values of that level and of every
wider one (rack ``r1`` of block ``b1`` is not rack ``r1`` of block ``b2``), as Kueue
counts them; it is named by those values joined with ``/``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from apps.queues.cohort_tree import is_gpu
from apps.queues.quantity import observed_units
from informer import objects as o


@dataclass(frozen=True)
class TopologyFlavor:
    """A flavor with topology levels: the nodes it selects and its levels, widest first."""

    name: str
    node_labels: dict[str, str]
    levels: tuple[tuple[str, str], ...]  # (name, node label key), e.g. ("rack", "example.com/rack")


def gpus_in(amounts: dict, where: str) -> int:
    """GPUs of every kind in ``amounts`` (resource → quantity); an unreadable one counts
    nothing (it is logged and counted by ``observed_units``)."""
    total = 0
    for resource, value in amounts.items():
        if is_gpu(resource):
            total += int(observed_units(value, where=f"{where} {resource}", reader="live") or 0)
    return total


def pod_gpus(pod: dict) -> int:
    """GPUs a bound pod holds as the scheduler counts them: its containers' requests
    summed, or its largest init container's when that is more."""
    where = f"Pod {pod.get('name', '')}"
    running = sum(gpus_in(c, where) for c in pod.get("containers") or ())
    init = max((gpus_in(c, where) for c in pod.get("init_containers") or ()), default=0)
    return max(running, init)


def gpus_used_per_node(pods: list[dict]) -> dict[str, int]:
    """Node name → GPUs the pods bound to it hold."""
    used: dict[str, int] = defaultdict(int)
    for pod in pods:
        if pod.get("node"):
            used[pod["node"]] += pod_gpus(pod)
    return dict(used)


def flavor_nodes(flavor: TopologyFlavor, nodes: list[dict]) -> list[dict]:
    """The nodes carrying every node label of the flavor (the ones Kueue places it on)."""
    return [
        n
        for n in nodes
        if all((n.get("labels") or {}).get(k) == v for k, v in flavor.node_labels.items())
    ]


def domains(flavor: TopologyFlavor, nodes: list[dict], used: dict[str, int]) -> list[dict]:
    """Per level, widest first: every domain's allocatable GPUs, GPUs in use and free.

    A node without the label of a level (or of a wider one) is in no domain of it.
    """
    mine = flavor_nodes(flavor, nodes)
    # Read each node's allocatable once, not once per level.
    held = {
        n.get("name", ""): gpus_in(n.get("allocatable") or {}, f"Node {n.get('name', '')}")
        for n in mine
    }
    levels = []
    for depth, (name, label) in enumerate(flavor.levels):
        keys = [key for _name, key in flavor.levels[: depth + 1]]
        totals: dict[str, list[int]] = {}
        for node in mine:
            labels = node.get("labels") or {}
            if not all(k in labels for k in keys):
                continue
            path = "/".join(labels[k] for k in keys)
            allocatable = held[node.get("name", "")]
            cell = totals.setdefault(path, [0, 0])
            cell[0] += allocatable
            cell[1] += min(used.get(node.get("name", ""), 0), allocatable)
        levels.append(
            {
                "level": name,
                "node_label": label,
                "domains": [
                    {"domain": path, "allocatable": a, "in_use": u, "free": a - u}
                    for path, (a, u) in sorted(totals.items())
                ],
            }
        )
    return levels


def freest(level: dict) -> dict | None:
    """The domain of a level with the most free GPUs (ties: first by name), or None."""
    return min(level["domains"], key=lambda d: (-d["free"], d["domain"]), default=None)


def flavor_rows(flavors: list[TopologyFlavor], nodes: list[dict], pods: list[dict]) -> list[dict]:
    """Every topology flavor with its levels' domains, by flavor name."""
    used = gpus_used_per_node(pods)
    return [
        {"flavor": f.name, "levels": domains(f, nodes, used)}
        for f in sorted(flavors, key=lambda f: f.name)
    ]


def required_level(pod_set: dict) -> str:
    """The node label key a pod set must fit inside one domain of ("" if none)."""
    return (pod_set.get("topologyRequest") or {}).get("required") or ""


def waiting_for_domain(
    waiting: list[dict], queue_flavors: dict[str, list[str]], rows: list[dict]
) -> list[dict]:
    """Waiting workloads whose pod set requires one domain of a level, with the most free
    GPUs any domain of that level has on the queue's flavors, against what they need.

    ``waiting`` are ``(workload, cluster queue)`` pairs as dicts ``{"workload", "cluster_queue"}``;
    ``queue_flavors`` maps a ClusterQueue to its flavors' names; ``rows`` are ``flavor_rows``.
    A pod set that needs no GPUs is left out.
    """
    by_flavor = {r["flavor"]: r for r in rows}
    found = []
    for item in waiting:
        workload, cq = item["workload"], item["cluster_queue"]
        for pod_set in (workload.get("spec") or {}).get("podSets") or ():
            label = required_level(pod_set)
            needs = sum(o.pod_set_gpus(pod_set).values()) if label else 0
            if not needs:
                continue
            best = _best_domain(label, queue_flavors.get(cq, []), by_flavor)
            if best is not None:
                found.append(_waiting_row(workload, cq, pod_set, needs, best))
    return found


def _best_domain(label: str, flavors: list[str], by_flavor: dict) -> tuple | None:
    """(flavor, level, freest domain or None) of the flavor whose freest domain of the
    level with node label ``label`` has the most free GPUs; None if no flavor has it."""
    candidates = []
    for flavor in flavors:
        for level in (by_flavor.get(flavor) or {}).get("levels", ()):
            if level["node_label"] == label:
                candidates.append((flavor, level["level"], freest(level)))
    return max(candidates, key=lambda c: c[2]["free"] if c[2] else -1, default=None)


def _waiting_row(workload: dict, cq: str, pod_set: dict, needs: int, best: tuple) -> dict:
    flavor, level, domain = best
    free = domain["free"] if domain else 0
    where = f"the freest {level} ({domain['domain']}) has {free}" if domain else f"no {level} found"
    return {
        "namespace": o.meta(workload).get("namespace", ""),
        "name": o.meta(workload).get("name", ""),
        "cluster_queue": cq,
        "pod_set": pod_set.get("name", ""),
        "pods": int(pod_set.get("count", 1)),
        "flavor": flavor,
        "level": level,
        "needs": needs,
        "freest_domain": domain["domain"] if domain else "",
        "freest_free": free,
        "summary": f"needs {needs} GPUs in one {level} of {flavor}; {where}",
    }
