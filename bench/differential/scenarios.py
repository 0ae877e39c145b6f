"""A seeded generator of small random Kueue scenarios, as lists of object dicts.

Every object of a scenario is named with its prefix (``s17-``) and carries the
``SCENARIO_LABEL``, and its LocalQueues and Jobs live in its own namespace, so
several scenarios can run side by side in one real cluster without meeting:
their ClusterQueues never share a cohort. Flavors select the shared node pools
by ``POOL_LABEL``; the pools are sized far above any quota (``pool_nodes``), so
quota, never node capacity, decides admission.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

GPU = "nvidia.com/gpu"
KUEUE = "kueue.x-k8s.io/v1beta2"
POOL_LABEL = "differential.quartermaster.io/pool"
SCENARIO_LABEL = "differential.quartermaster.io/scenario"
ARRIVAL_ANNOTATION = "differential.quartermaster.io/arrival-seconds"
# The pod annotation KWOK's pod-complete stage reads (realcluster.nodes); a kubelet ignores it.
DURATION_ANNOTATION = "quartermaster.io/simulated-duration"
# KWOK's pod stages wait 1-5 s each by default; these make create and ready near-instant
# so a job's run time is its duration plus little noise.
FAST_POD_ANNOTATIONS = {
    f"pod-{stage}.stage.kwok.x-k8s.io/{key}": "100ms"
    for stage in ("create", "ready")
    for key in ("delay", "jitter-delay")
}
POOLS = ("pool-0", "pool-1", "pool-2")
NESTED_FROM = 1_000_000
"""Seeds from here build a two-level cohort tree (a root Cohort over two child Cohorts,
every ClusterQueue in one of them); lower seeds keep the flat scenarios measured so far."""
TAS_FROM = 2_000_000
"""Seeds from here build topology-aware scenarios (``_TasMaker``): a flavor with a
Kueue Topology over nodes of the scenario's own, every job required in one domain."""
AFS_FROM = 3_000_000
"""Seeds from here build AdmissionFairSharing scenarios (``afs_scenarios``), run on a
Kueue whose Configuration has the ``admissionFairSharing`` block."""
BLOCK, RACK, HOST = (
    "differential.quartermaster.io/block",
    "differential.quartermaster.io/rack",
    ("kubernetes.io/hostname"),
)
REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
PRIORITIES = (("low", 100), ("mid", 500), ("high", 1000))
QUOTAS = (0, 4, 8, 8, 12, 16)


@dataclass(frozen=True)
class Scenario:
    """One generated scenario: ``objects`` is all a runner needs (plus ``fair_sharing``)."""

    seed: int
    prefix: str
    namespace: str
    fair_sharing: bool
    objects: list[dict[str, Any]]
    admission_fair_sharing: bool = False
    """Kueue runs with the ``admissionFairSharing`` block (realcluster's opt-in)."""

    @property
    def jobs(self) -> list[dict[str, Any]]:
        """The batch/v1 Jobs, by arrival."""
        jobs = [o for o in self.objects if o["kind"] == "Job"]
        return sorted(jobs, key=arrival_seconds)

    @property
    def setup(self) -> list[dict[str, Any]]:
        """Everything but the Jobs: what exists before the first arrival."""
        return [o for o in self.objects if o["kind"] != "Job"]

    def short(self, name: str) -> str:
        """A name without the scenario prefix (``s17-j03`` -> ``j03``)."""
        return name.removeprefix(self.prefix)


def arrival_seconds(job: dict[str, Any]) -> int:
    return int(job["metadata"]["annotations"][ARRIVAL_ANNOTATION])


def duration_seconds(job: dict[str, Any]) -> int:
    pod_meta = job["spec"]["template"]["metadata"]
    return int(pod_meta["annotations"][DURATION_ANNOTATION].removesuffix("s"))


def generate(seed: int) -> Scenario:
    """The scenario of ``seed``; the same seed always gives the same scenario."""
    rng = random.Random(seed)
    prefix = f"s{seed}-"
    namespace = f"diff-s{seed}"
    if seed >= AFS_FROM:
        from .afs_scenarios import AfsMaker

        objects = AfsMaker(rng, prefix, namespace, fair=False).objects()
        return Scenario(seed, prefix, namespace, False, objects, admission_fair_sharing=True)
    if seed >= TAS_FROM:
        return Scenario(seed, prefix, namespace, False, _TasMaker(rng, prefix, namespace).objects())
    fair = rng.random() < 0.35
    maker = _Maker(rng, prefix, namespace, fair, nested=NESTED_FROM <= seed < TAS_FROM)
    return Scenario(seed, prefix, namespace, fair, maker.objects())


def pool_nodes(per_pool: int = 4, gpus_per_node: int = 256) -> list[dict[str, Any]]:
    """Nodes for every flavor pool, shared by all scenarios in a cluster."""
    from realcluster.nodes import gpu_node

    return [
        gpu_node(
            f"diff-{pool}-{i}",
            labels={POOL_LABEL: pool},
            resources={GPU: str(gpus_per_node), "pods": "1000"},
        )
        for pool in POOLS
        for i in range(per_pool)
    ]


class _Maker:
    """Draws one scenario's objects from ``rng`` in a fixed order."""

    def __init__(
        self, rng: random.Random, prefix: str, namespace: str, fair: bool, nested: bool = False
    ):
        self.rng, self.prefix, self.namespace, self.fair = rng, prefix, namespace, fair
        self.nested = nested
        self.labels = {SCENARIO_LABEL: prefix.rstrip("-")}

    def meta(self, name: str, namespaced: bool = False) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": self.prefix + name, "labels": dict(self.labels)}
        if namespaced:
            meta["namespace"] = self.namespace
        return meta

    def objects(self) -> list[dict[str, Any]]:
        rng = self.rng
        ns_meta = {"name": self.namespace, "labels": dict(self.labels)}
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": ns_meta}
        flavors = [f"f{i}" for i in range(rng.randint(1, 3))]
        classes = sorted(rng.sample(PRIORITIES, rng.randint(2, 3)), key=lambda p: p[1])
        cohorts = ["co0", "co1"] if self.nested else [f"co{i}" for i in range(rng.randint(0, 2))]
        low = 3 if self.nested else 2  # a tree needs queues on both sides
        cqs = [self.cluster_queue(f"cq{i}", flavors, cohorts) for i in range(rng.randint(low, 6))]
        objects = [namespace, *map(self.flavor, flavors), *map(self.priority_class, classes)]
        if self.nested:
            objects += self.cohort_tree(cohorts, flavors)
        else:
            objects += [self.cohort(name, flavors) for name in cohorts if rng.random() < 0.25]
        objects += cqs
        objects += [self.local_queue(cq) for cq in cqs]
        arrivals = sorted(rng.sample(range(0, 61, 2), rng.randint(4, 14)))
        objects += [
            self.job(f"j{i:02d}", rng.choice(cqs), rng.choice(classes)[0], arrival)
            for i, arrival in enumerate(arrivals)
        ]
        return objects

    def flavor(self, name: str) -> dict[str, Any]:
        pool = POOLS[int(name[1:])]
        spec = {"nodeLabels": {POOL_LABEL: pool}}
        return {
            "apiVersion": KUEUE,
            "kind": "ResourceFlavor",
            "metadata": self.meta(name),
            "spec": spec,
        }

    def priority_class(self, item: tuple[str, int]) -> dict[str, Any]:
        meta = self.meta(item[0])
        return {
            "apiVersion": KUEUE,
            "kind": "WorkloadPriorityClass",
            "metadata": meta,
            "value": item[1],
        }

    def cohort(self, name: str, flavors: list[str], parent: str | None = None) -> dict[str, Any]:
        """An explicit Cohort with a little quota of its own, lent to its members."""
        flavor = self.rng.choice(flavors)
        quota = [{"name": self.prefix + flavor, "resources": [{"name": GPU, "nominalQuota": 4}]}]
        spec: dict[str, Any] = {"resourceGroups": [{"coveredResources": [GPU], "flavors": quota}]}
        if parent:
            spec["parentName"] = self.prefix + parent
        return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": self.meta(name), "spec": spec}

    def cohort_tree(self, children: list[str], flavors: list[str]) -> list[dict[str, Any]]:
        """A root Cohort over ``children``; each, the root too, may hold quota of its own."""
        tree = []
        for name, parent in [("top", None), *((child, "top") for child in children)]:
            if self.rng.random() < 0.35:
                tree.append(self.cohort(name, flavors, parent))
            else:
                spec = {"parentName": self.prefix + parent} if parent else {}
                tree.append(
                    {
                        "apiVersion": KUEUE,
                        "kind": "Cohort",
                        "metadata": self.meta(name),
                        "spec": spec,
                    }
                )
        return tree

    def cluster_queue(self, name: str, flavors: list[str], cohorts: list[str]) -> dict[str, Any]:
        rng = self.rng
        if self.nested:
            cohort = cohorts[int(name[2:]) % len(cohorts)]  # both sides of the tree filled
        else:
            cohort = rng.choice([*cohorts, None]) if cohorts else None
        chosen = rng.sample(flavors, rng.randint(1, len(flavors)))
        quotas = [rng.choice(QUOTAS) for _ in chosen]
        if max(quotas) < 4:
            quotas[0] = 8
        spec: dict[str, Any] = {
            "namespaceSelector": {},
            "queueingStrategy": rng.choice(["BestEffortFIFO", "StrictFIFO"]),
            "preemption": self.preemption(cohort is not None),
            "resourceGroups": [
                {
                    "coveredResources": [GPU],
                    "flavors": [
                        self.flavor_quota(f, q, cohort is not None)
                        for f, q in zip(chosen, quotas, strict=True)
                    ],
                }
            ],
        }
        if cohort:
            spec["cohortName"] = self.prefix + cohort
        if self.fair:
            spec["fairSharing"] = {"weight": rng.choice(["1", "1", "2", "3"])}
        return {
            "apiVersion": KUEUE,
            "kind": "ClusterQueue",
            "metadata": self.meta(name),
            "spec": spec,
        }

    def flavor_quota(self, flavor: str, nominal: int, in_cohort: bool) -> dict[str, Any]:
        quota: dict[str, Any] = {"name": GPU, "nominalQuota": nominal}
        if in_cohort and self.rng.random() < 0.3:
            quota["borrowingLimit"] = self.rng.choice([0, 4, 8])
        if in_cohort and self.rng.random() < 0.3:
            quota["lendingLimit"] = self.rng.randint(0, nominal // 4) * 4
        return {"name": self.prefix + flavor, "resources": [quota]}

    def preemption(self, in_cohort: bool) -> dict[str, Any]:
        rng = self.rng
        policy: dict[str, Any] = {
            "withinClusterQueue": rng.choice(["Never", "LowerPriority"]),
            "reclaimWithinCohort": rng.choice(["Never", "Any", "LowerPriority"]),
        }
        # Kueue rejects borrowWithinCohort without reclaim, and ignores it under fair sharing.
        reclaims = policy["reclaimWithinCohort"] != "Never"
        if in_cohort and not self.fair and reclaims and rng.random() < 0.3:
            policy["borrowWithinCohort"] = {"policy": "LowerPriority"}
        if self.fair and not in_cohort:
            # Kueue v0.17.0 crashes on this (see FINDINGS.md, "fair sharing without a cohort").
            policy["withinClusterQueue"] = "Never"
        return policy

    def local_queue(self, cq: dict[str, Any]) -> dict[str, Any]:
        meta = self.meta(self._lq_name(cq), namespaced=True)
        spec = {"clusterQueue": cq["metadata"]["name"]}
        return {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": meta, "spec": spec}

    def _lq_name(self, cq: dict[str, Any]) -> str:
        return "lq-" + cq["metadata"]["name"].removeprefix(self.prefix)

    def job(self, name: str, cq: dict[str, Any], priority: str, arrival: int) -> dict[str, Any]:
        rng = self.rng
        pods, gpus = rng.choice([1, 1, 1, 2, 3]), rng.randint(1, 8)
        pods, gpus = _fit(pods, gpus, _largest_quota(cq))
        meta = self.meta(name, namespaced=True)
        meta["labels"].update(
            {
                "kueue.x-k8s.io/queue-name": self.prefix + self._lq_name(cq),
                "kueue.x-k8s.io/priority-class": self.prefix + priority,
            }
        )
        meta["annotations"] = {ARRIVAL_ANNOTATION: str(arrival)}
        pod_annotations = {DURATION_ANNOTATION: f"{rng.randint(20, 90)}s", **FAST_POD_ANNOTATIONS}
        container = {"name": "main", "image": "busybox", "resources": {"limits": {GPU: str(gpus)}}}
        pod_spec = {
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 1,
            "containers": [container],
        }
        spec = {
            "suspend": True,
            "parallelism": pods,
            "completions": pods,
            "backoffLimit": 0,
            "template": {"metadata": {"annotations": pod_annotations}, "spec": pod_spec},
        }
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


def _largest_quota(cq: dict[str, Any]) -> int:
    flavors = cq["spec"]["resourceGroups"][0]["flavors"]
    return max(f["resources"][0]["nominalQuota"] for f in flavors)


def _fit(pods: int, gpus: int, limit: int) -> tuple[int, int]:
    """Shrink a job until it fits its ClusterQueue's largest nominal quota,
    so every job can run once the others are done and each scenario ends."""
    while pods * gpus > limit:
        if gpus > 1:
            gpus -= 1
        else:
            pods -= 1
    return pods, gpus


class _TasMaker(_Maker):
    """A topology scenario: one block of 2-3 racks of 2 hosts with 8 GPUs each, all the
    scenario's own; one flavor with a Topology (block, rack, host) over them; 1-2
    ClusterQueues with quota for every GPU, no cohort and no preemption (the engine does
    not model topology during preemption), so node room, not quota, decides. Every job
    requires one domain (host, rack, or the block: "anywhere") it fits when the nodes
    are empty, so each scenario ends."""

    def __init__(self, rng: random.Random, prefix: str, namespace: str):
        super().__init__(rng, prefix, namespace, fair=False)
        self.pool = prefix + "tas"

    def objects(self) -> list[dict[str, Any]]:
        rng = self.rng
        ns_meta = {"name": self.namespace, "labels": dict(self.labels)}
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": ns_meta}
        racks = rng.randint(2, 3)
        nodes = [self.node(r, h) for r in range(racks) for h in range(2)]
        classes = sorted(rng.sample(PRIORITIES, 2), key=lambda p: p[1])
        cqs = [self.tas_queue(f"cq{i}", 8 * len(nodes)) for i in range(rng.randint(1, 2))]
        objects = [namespace, *nodes, self.topology(), self.tas_flavor()]
        objects += [*map(self.priority_class, classes), *cqs]
        objects += [self.local_queue(cq) for cq in cqs]
        arrivals = sorted(rng.sample(range(0, 41, 2), rng.randint(4, 10)))
        objects += [
            self.tas_job(f"j{i:02d}", rng.choice(cqs), rng.choice(classes)[0], arrival)
            for i, arrival in enumerate(arrivals)
        ]
        return objects

    def node(self, rack: int, host: int) -> dict[str, Any]:
        from realcluster.nodes import gpu_node

        name = f"{self.prefix}r{rack}h{host}"
        labels = {**self.labels, POOL_LABEL: self.pool, BLOCK: "b0", RACK: f"r{rack}"}
        return gpu_node(name, labels=labels, resources={GPU: "8", "pods": "110"})

    def topology(self) -> dict[str, Any]:
        levels = [{"nodeLabel": BLOCK}, {"nodeLabel": RACK}, {"nodeLabel": HOST}]
        return {"apiVersion": KUEUE, "kind": "Topology", "metadata": self.meta("topo"),
                "spec": {"levels": levels}}  # fmt: skip

    def tas_flavor(self) -> dict[str, Any]:
        spec = {"nodeLabels": {POOL_LABEL: self.pool}, "topologyName": self.prefix + "topo"}
        return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": self.meta("f0"),
                "spec": spec}  # fmt: skip

    def tas_queue(self, name: str, gpus: int) -> dict[str, Any]:
        quota = {"name": self.prefix + "f0", "resources": [{"name": GPU, "nominalQuota": gpus}]}
        spec = {
            "namespaceSelector": {},
            "queueingStrategy": self.rng.choice(["BestEffortFIFO", "StrictFIFO"]),
            "resourceGroups": [{"coveredResources": [GPU], "flavors": [quota]}],
        }
        return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": self.meta(name),
                "spec": spec}  # fmt: skip

    def tas_job(self, name: str, cq: dict[str, Any], priority: str, arrival: int) -> dict:
        rng = self.rng
        level, room = rng.choice([(HOST, 8), (RACK, 16), (RACK, 16), (BLOCK, 32)])
        gpus = rng.choice([2, 4, 8])
        pods = rng.randint(1, max(1, min(4, room // gpus)))
        job = self.job(name, cq, priority, arrival)
        job["spec"]["parallelism"] = job["spec"]["completions"] = pods
        job["spec"]["template"]["metadata"]["annotations"][REQUIRED_TOPOLOGY] = level
        container = job["spec"]["template"]["spec"]["containers"][0]
        container["resources"] = {"limits": {GPU: str(gpus)}}
        return job
