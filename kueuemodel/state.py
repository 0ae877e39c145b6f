"""The simulated cluster: parsed specs, the quota tree, queues and workloads.

``Cluster`` is a plain container; the verbs that change it live in
``lifecycle`` (admit, evict, finish) and ``scheduler`` (the admission cycle).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from . import model as m
from . import parse
from .admission_usage import AdmissionFairSharing, LocalQueueUsage, parse_admission_fair_sharing
from .queues import PendingQueue
from .quota import QuotaNode, compute_subtree_quotas, load_quotas
from .status import StatusWriter

CONFIG_API = "config.kueue.x-k8s.io"


DEFAULT_STRATEGIES = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")


@dataclass(frozen=True, slots=True)
class FairSharingConfig:
    strategies: tuple[str, ...] = DEFAULT_STRATEGIES


@dataclass(slots=True, eq=False)
class Cluster:
    """Everything the scheduler reads and writes, keyed by object name."""

    flavors: dict[str, m.ResourceFlavor] = field(default_factory=dict)
    cluster_queues: dict[str, m.ClusterQueue] = field(default_factory=dict)
    cohorts: dict[str, m.Cohort] = field(default_factory=dict)
    local_queues: dict[str, m.LocalQueue] = field(default_factory=dict)
    priority_classes: dict[str, int] = field(default_factory=dict)
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)
    nodes: dict[str, m.Node] = field(default_factory=dict)
    fair_sharing: FairSharingConfig | None = None
    admission_fair_sharing: AdmissionFairSharing | None = None
    queue_usage: dict[str, LocalQueueUsage] = field(default_factory=dict)
    """``namespace/name`` -> AdmissionFairSharing usage of that LocalQueue (``admission_order``)."""
    queue_admitted: dict[str, dict[str, int]] = field(default_factory=dict)
    """``namespace/name`` -> what the LocalQueue's workloads holding quota request, per
    resource (kept only with AdmissionFairSharing configured)."""
    usage_moved: set[str] = field(default_factory=set)
    """ClusterQueues whose LocalQueues' usage moved since their pending order was last sorted."""
    cq_nodes: dict[str, QuotaNode] = field(default_factory=dict)
    cohort_nodes: dict[str, QuotaNode] = field(default_factory=dict)
    inactive: dict[str, str] = field(default_factory=dict)
    """ClusterQueue name -> why it cannot admit (missing flavor, cohort cycle)."""
    flavor_plans: dict[tuple, Any] = field(default_factory=dict)
    """(ClusterQueue, workload shape) -> ``flavors.FlavorPlan``, for this quota tree."""
    queues: dict[str, PendingQueue] = field(default_factory=dict)
    workloads: dict[str, m.Workload] = field(default_factory=dict)
    reserving: dict[str, dict[str, m.Workload]] = field(default_factory=dict)
    by_priority: dict[str, dict[int, dict[str, m.Workload]]] = field(default_factory=dict)
    """``reserving`` again, per ClusterQueue split by priority: preemption's index."""
    census: dict[str, dict[int, dict[m.FlavorResource, int]]] = field(default_factory=dict)
    """Cohort tree root -> priority -> quota cell -> how many workloads holding quota
    in that tree use the cell: lets a victim search see that it would find nobody."""
    held: dict[str, m.Workload] = field(default_factory=dict)
    """Pending workloads that no quota release can help (bad queue, stopped queue)."""
    free: dict[str, dict[str, int]] = field(default_factory=dict)
    placements: dict[str, list[tuple[str, dict[str, int]]]] = field(default_factory=dict)
    unplaced: dict[str, m.Workload] = field(default_factory=dict)
    stopping: list[tuple[m.Workload, int]] = field(default_factory=list)
    """(workload, evictions) evicted since the loop last looked: release them once
    their pods have stopped (``lifecycle.release_evicted``)."""
    started: list[tuple[m.Workload, int]] = field(default_factory=list)
    """(workload, run start ms) for pods that began running since the loop last looked."""
    events: list[dict[str, Any]] = field(default_factory=list)
    record_events: bool = True
    status_writer: StatusWriter = field(default_factory=StatusWriter)
    history: list[tuple[int, str, m.Workload, str]] | None = None
    """When a list: (ms, kind, workload, ClusterQueue) per transition, kind one of
    "admit", "evict" (pods start stopping), "release" (their quota is freed), "finish"."""
    writes: list[tuple[str, m.Workload]] | None = None
    """When a list: the API writes Kueue would make, (``latency.ADMIT``/``EVICT``/``PENDING``,
    workload), collected by a paced simulation to time its cycle (``latency.Latency``)."""
    now_ms: int = 0

    def namespace_labels(self, namespace: str) -> dict[str, str]:
        labels = self.namespaces.get(namespace, {})
        return {"kubernetes.io/metadata.name": namespace, **labels}

    def local_queue_of(self, wl: m.Workload) -> m.LocalQueue | None:
        return self.local_queues.get(f"{wl.namespace}/{wl.queue_name}")

    def cluster_queue_of(self, wl: m.Workload) -> str | None:
        lq = self.local_queue_of(wl)
        return lq.cluster_queue if lq else None


def is_config(obj: dict[str, Any]) -> bool:
    return obj.get("kind") == "Configuration" and str(obj.get("apiVersion", "")).startswith(
        CONFIG_API
    )


def parse_config(obj: dict[str, Any]) -> FairSharingConfig | None:
    """Fair sharing is on exactly when the ``fairSharing`` block is present."""
    block = obj.get("fairSharing")
    if block is None:
        return None
    # ``fairSharing: {}`` (or an empty list) means Kueue's default strategies.
    # Reading the default through the class would return the slots descriptor.
    strategies = (block or {}).get("preemptionStrategies") or DEFAULT_STRATEGIES
    return FairSharingConfig(tuple(strategies))


def load_specs(cluster: Cluster, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Read every non-workload object; return the workload-like ones untouched."""
    rest = []
    topologies: dict[str, tuple[str, ...]] = {}
    for obj in objects:
        kind = obj.get("kind")
        if is_config(obj):
            cluster.fair_sharing = parse_config(obj)
            cluster.admission_fair_sharing = parse_admission_fair_sharing(
                obj.get("admissionFairSharing")
            )
        elif kind == "ResourceFlavor":
            flavor = parse.parse_flavor(obj)
            cluster.flavors[flavor.name] = flavor
        elif kind == "ClusterQueue":
            cq = parse.parse_cluster_queue(obj)
            cluster.cluster_queues[cq.name] = cq
        elif kind == "Cohort":
            cohort = parse.parse_cohort(obj)
            cluster.cohorts[cohort.name] = cohort
        elif kind == "LocalQueue":
            lq = parse.parse_local_queue(obj)
            cluster.local_queues[f"{lq.namespace}/{lq.name}"] = lq
        elif kind == "WorkloadPriorityClass":
            cluster.priority_classes[obj["metadata"]["name"]] = int(obj.get("value", 0))
        elif kind == "Namespace":
            meta = obj.get("metadata") or {}
            cluster.namespaces[meta["name"]] = dict(meta.get("labels") or {})
        elif kind == "Node":
            node = parse.parse_node(obj)
            cluster.nodes[node.name] = node
        elif kind == "Topology":
            topologies[obj["metadata"]["name"]] = parse.parse_topology_levels(obj)
        else:
            rest.append(obj)
    for name, flavor in cluster.flavors.items():
        if flavor.topology_name in topologies:  # either may come first
            levels = topologies[flavor.topology_name]
            cluster.flavors[name] = replace(flavor, topology_levels=levels)
    return rest


def build_quota_tree(cluster: Cluster) -> None:
    """(Re)build cohort and ClusterQueue nodes; usage starts at zero."""
    cluster.cohort_nodes = {}
    cluster.cq_nodes = {}
    cluster.flavor_plans = {}
    cluster.inactive = {}
    for cohort in cluster.cohorts.values():
        node = _cohort_node(cluster, cohort.name)
        node.weight = cohort.weight
        load_quotas(node, cohort.resource_groups)
    for cohort in cluster.cohorts.values():
        if cohort.parent:
            _link(_cohort_node(cluster, cohort.name), _cohort_node(cluster, cohort.parent))
    cyclic = _break_cycles(cluster)
    for cq in cluster.cluster_queues.values():
        node = QuotaNode(cq.name, True, cq.weight)
        load_quotas(node, cq.resource_groups)
        cluster.cq_nodes[cq.name] = node
        if cq.cohort:
            _link(node, _cohort_node(cluster, cq.cohort))
        _check_active(cluster, cq, cyclic)
    for node in _roots(cluster):
        compute_subtree_quotas(node)


def _cohort_node(cluster: Cluster, name: str) -> QuotaNode:
    # Referencing a Cohort that has no object creates an implicit, limit-free one.
    if name not in cluster.cohort_nodes:
        cluster.cohort_nodes[name] = QuotaNode(name, False)
    return cluster.cohort_nodes[name]


def _link(child: QuotaNode, parent: QuotaNode) -> None:
    child.parent = parent
    parent.children.append(child)


def _break_cycles(cluster: Cluster) -> set[str]:
    """Detach cohorts that sit on a parent cycle; return their names."""
    cyclic: set[str] = set()
    for node in cluster.cohort_nodes.values():
        seen, walker = set(), node
        while walker is not None and walker.name not in seen:
            seen.add(walker.name)
            walker = walker.parent
        if walker is not None and walker is node:
            cyclic.add(node.name)
    for name in cyclic:
        node = cluster.cohort_nodes[name]
        if node.parent is not None:
            node.parent.children.remove(node)
            node.parent = None
    return cyclic


def _check_active(cluster: Cluster, cq: m.ClusterQueue, cyclic: set[str]) -> None:
    node = cluster.cq_nodes[cq.name]
    if any(ancestor.name in cyclic for ancestor in node.ancestors()):
        cluster.inactive[cq.name] = (
            f"ClusterQueue {cq.name} is inactive: its cohort tree has a cycle"
        )
    for group in cq.resource_groups:
        for flavor in group.flavors:
            if flavor.name not in cluster.flavors:
                cluster.inactive[cq.name] = (
                    f"ClusterQueue {cq.name} is inactive: flavor {flavor.name} not found"
                )


def _roots(cluster: Cluster) -> list[QuotaNode]:
    nodes = list(cluster.cohort_nodes.values()) + list(cluster.cq_nodes.values())
    return [node for node in nodes if node.parent is None]
