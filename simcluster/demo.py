"""A realistic week on the demo cluster, generated in virtual time.

``demo_objects()`` is the demo catalogue (mirrors ``portal/demo/policy.py``:
flavors, cohorts, priority tiers, one ClusterQueue/LocalQueue per team; and
``portal/demo/notebooks.py``'s interactive pool).
``generate_week(objects, days=7, seed=1, start_ms=...)`` returns an arrival
trace ``[(epoch_ms, manifest)]`` of Jobs and notebook StatefulSets; Nodes
for every flavor come from ``nodes_for(objects)``. ``seed_history`` replays
it through a live controller so the API server holds the finished history,
and ``Trickle`` keeps new jobs arriving in real time afterwards.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kueuemodel import format_duration

Obj = dict[str, Any]
KUEUE = "kueue.x-k8s.io/v1beta2"
DAY_MS = 86_400_000
GPU, MIG = "nvidia.com/gpu", "nvidia.com/mig-1g.10gb"
FLAVORS = {
    "h100-80gb": ({"gpu.nvidia.com/class": "h100"}, GPU, 64, "p5.48xlarge"),
    "a100-80gb": ({"gpu.nvidia.com/class": "a100"}, GPU, 32, "p4de.24xlarge"),
    "a100-mig-1g10gb": ({"gpu.nvidia.com/class": "a100-mig"}, MIG, 56, "p4de.24xlarge"),
}
# Flavors with a Kueue Topology (mirrors portal/demo/policy.py's TOPOLOGY_LEVELS): level
# node labels widest first. Their nodes sit RACK_SIZE to a rack (a100: 4 nodes, 2 racks).
RACK, HOSTNAME = "example.com/rack", "kubernetes.io/hostname"
TOPOLOGY = {"a100-80gb": (RACK, HOSTNAME)}
RACK_SIZE = 2
TIERS = {"p0-critical": 1000, "p1-high": 500, "p2-standard": 100, "p3-best-effort": 10}
TEAMS = {
    "vision": ("gpu-research", {"h100-80gb": 24, "a100-80gb": 8}),
    "nlp": ("gpu-research", {"h100-80gb": 32, "a100-80gb": 8}),
    "speech": ("gpu-research", {"a100-80gb": 8, "a100-mig-1g10gb": 28}),
    "inference": ("gpu-production", {"h100-80gb": 8, "a100-mig-1g10gb": 28}),
}
GPUS_PER_NODE = {GPU: 8, MIG: 56}
# The portal's interactive pool (portal/demo/notebooks.py): the a100 GPUs no team queue holds.
POOL = "interactive"
POOL_QUOTA = ("a100-80gb", {"cpu": "64", "memory": "512Gi", GPU: "8"})
POOL_TIER = "p1-high"
# One of alice's notebooks, requested this long before the seeded week ends and idle
# since: long enough that the portal's first idle-culling passes warn, then cull it.
IDLE_NOTEBOOK = "nb-alice-idle"
IDLE_NOTEBOOK_AGE_MS = 75 * 60_000


# ----- the catalogue -----------------------------------------------------------------


def demo_objects(labels: dict[str, str] | None = None) -> list[Obj]:
    """Namespaces, flavors, cohorts, priority classes and one queue pair per team.

    ``labels`` go on every object, e.g. a portal's managed-by label so that the
    portal adopts the seeded catalogue instead of treating it as foreign.
    """
    objects = _catalogue()
    for obj in objects:
        obj["metadata"].setdefault("labels", {}).update(labels or {})
    return objects


def _catalogue() -> list[Obj]:
    objects: list[Obj] = [_kueue("Cohort", "gpu-pool", spec={})]
    objects += [
        _kueue("Cohort", c, spec={"parentName": "gpu-pool"})
        for c in ("gpu-research", "gpu-production")
    ]
    objects += [
        _kueue("Topology", name, spec={"levels": [{"nodeLabel": key} for key in levels]})
        for name, levels in TOPOLOGY.items()
    ]
    objects += [
        _kueue("ResourceFlavor", name, spec=_flavor_spec(name, labels))
        for name, (labels, *_rest) in FLAVORS.items()
    ]
    objects += [
        {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": n}, "value": v}
        for n, v in TIERS.items()
    ]
    for team, (cohort, quotas) in TEAMS.items():
        namespace = f"team-{team}"
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": namespace, "labels": {"team": team}},
            }
        )
        objects.append(_kueue("ClusterQueue", team, spec=_cq_spec(cohort, quotas)))
        objects.append(_kueue("LocalQueue", team, namespace, spec={"clusterQueue": team}))
        objects.append(_kueue("LocalQueue", POOL, namespace, spec={"clusterQueue": POOL}))
    objects.append(_kueue("ClusterQueue", POOL, spec=_pool_spec()))
    return objects


def _flavor_spec(name: str, labels: dict[str, str]) -> Obj:
    spec: Obj = {"nodeLabels": labels}
    if name in TOPOLOGY:
        spec["topologyName"] = name
    return spec


def _pool_spec() -> Obj:
    """Strictly reserved: no cohort, covering what a notebook pod requests."""
    flavor, quota = POOL_QUOTA
    return {
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": list(quota),
                "flavors": [
                    {
                        "name": flavor,
                        "resources": [{"name": r, "nominalQuota": q} for r, q in quota.items()],
                    }
                ],
            }
        ],
        "preemption": {"reclaimWithinCohort": "Never", "withinClusterQueue": "Never"},
    }


def _kueue(kind: str, name: str, namespace: str = "", **body: Any) -> Obj:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": KUEUE, "kind": kind, "metadata": meta, **body}


def _cq_spec(cohort: str, quotas: dict[str, int]) -> Obj:
    groups = []
    for resource in (GPU, MIG):
        flavors = [
            {"name": name, "resources": [{"name": resource, "nominalQuota": quotas.get(name, 0)}]}
            for name, (_l, res, _c, _t) in FLAVORS.items()
            if res == resource
        ]
        groups.append({"coveredResources": [resource], "flavors": flavors})
    return {
        "cohortName": cohort,
        "namespaceSelector": {},
        "resourceGroups": groups,
        "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
    }


def nodes_for(objects: list[Obj]) -> list[Obj]:
    """GPU nodes for every ResourceFlavor that has none yet (8 GPUs or 56 MIG slices each)."""
    existing = [o for o in objects if o.get("kind") == "Node"]
    nodes: list[Obj] = []
    for flavor in (o for o in objects if o.get("kind") == "ResourceFlavor"):
        name = flavor["metadata"]["name"]
        labels = (flavor.get("spec") or {}).get("nodeLabels") or {}
        if not labels or any(_matches(n, labels) for n in existing):
            continue
        _l, resource, total, instance = FLAVORS.get(name, (labels, GPU, 8, "gpu-node"))
        per_node = GPUS_PER_NODE[resource]
        for i in range(max(1, total // per_node)):
            placed = {RACK: f"rack-{i // RACK_SIZE + 1}"} if name in TOPOLOGY else {}
            node_labels = {**labels, **placed}
            nodes.append(_node(f"{name}-{i + 1:02d}", node_labels, resource, per_node, instance))
    return nodes


def _matches(node: Obj, labels: dict[str, str]) -> bool:
    have = (node.get("metadata") or {}).get("labels") or {}
    return all(have.get(k) == v for k, v in labels.items())


def _node(name: str, labels: dict[str, str], resource: str, count: int, instance: str) -> Obj:
    resources = {"cpu": "192", "memory": "2Ti", "pods": "110", resource: str(count)}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                **labels,
                "kubernetes.io/hostname": name,
                "kubernetes.io/arch": "amd64",
                "node.kubernetes.io/instance-type": instance,
            },
        },
        "status": {"capacity": resources, "allocatable": dict(resources)},
    }


# ----- workload classes -------------------------------------------------------------


@dataclass(frozen=True)
class WorkloadClass:
    """One kind of work a team submits; ``per_day`` arrivals, durations in minutes."""

    name: str
    team: str
    per_day: float
    pods: int
    gpus: int
    resource: str
    selector: str | None
    tier: str
    minutes: tuple[int, int]
    utilization: str
    checkpoint: str | None = None
    sweep: int = 1
    notebook: bool = False
    topology: str = ""  # a node label key: all pods in one domain of that level


CLASSES = (
    WorkloadClass(
        "sweep", "vision", 3, 1, 1, GPU, "h100", "p3-best-effort", (20, 90), "steady:85", sweep=12
    ),
    WorkloadClass(
        "finetune", "vision", 6, 1, 8, GPU, "h100", "p2-standard", (120, 360), "steady:80", "30m"
    ),
    WorkloadClass(
        "pretrain", "nlp", 1.5, 8, 8, GPU, "h100", "p1-high", (360, 720), "steady:90", "1h"
    ),
    WorkloadClass(
        "finetune", "nlp", 6, 1, 8, GPU, None, "p2-standard", (90, 270), "steady:75", "30m"
    ),
    WorkloadClass(
        "sweep", "nlp", 2, 1, 1, GPU, "a100", "p3-best-effort", (30, 90), "bursty", sweep=10
    ),
    WorkloadClass(
        "finetune", "speech", 5, 1, 4, GPU, "a100", "p2-standard", (180, 420), "steady:70", "30m"
    ),
    WorkloadClass("eval", "speech", 20, 1, 1, MIG, None, "p3-best-effort", (20, 90), "steady:60"),
    WorkloadClass("serve", "inference", 60, 1, 2, MIG, None, "p0-critical", (10, 40), "bursty"),
    WorkloadClass(
        "batch", "inference", 4, 1, 8, GPU, "h100", "p0-critical", (60, 180), "steady:65"
    ),
    WorkloadClass(
        "notebook", "vision", 3, 1, 1, GPU, "a100", "p1-high", (120, 300), "idle", notebook=True
    ),
    WorkloadClass(
        "notebook", "nlp", 3, 1, 1, GPU, "h100", "p1-high", (60, 240), "bursty", notebook=True
    ),
    # Last, so the classes above draw the same random numbers as before it came.
    WorkloadClass(
        "ddp",
        "speech",
        1.5,
        2,
        4,
        GPU,
        "a100",
        "p2-standard",
        (120, 300),
        "steady:85",
        "30m",
        topology=RACK,
    ),  # fmt: skip
)


def generate_week(
    objects: list[Obj] | None = None,
    *,
    days: float = 7,
    seed: int = 1,
    start_ms: int,
    load: float = 1.0,
) -> list[tuple[int, Obj]]:
    """Arrivals over ``days`` from ``start_ms``: busier in working hours, reproducible by seed.

    ``objects`` is the catalogue the trace is for; classes whose team has no
    LocalQueue in it are skipped. ``load`` multiplies every class's arrival rate
    (a busier week on the same cluster, e.g. for what-if fidelity under contention).
    """
    rng = random.Random(seed)
    catalogue = objects or demo_objects()
    teams = {o["metadata"]["name"] for o in catalogue if o.get("kind") == "LocalQueue"}
    trace: list[tuple[int, Obj]] = []
    for cls in (c for c in CLASSES if c.team in teams):
        count = _poisson(rng, cls.per_day * days * load)
        for index in range(count):
            at = start_ms + _arrival_offset(rng, days)
            trace.extend(_arrivals(rng, cls, at, index))
    if any(o.get("kind") == "ClusterQueue" and o["metadata"]["name"] == POOL for o in catalogue):
        end = start_ms + int(days * DAY_MS)
        trace.append((end - IDLE_NOTEBOOK_AGE_MS, idle_notebook()))
    trace.sort(
        key=lambda item: (item[0], item[1]["metadata"]["namespace"], item[1]["metadata"]["name"])
    )
    return trace


def _poisson(rng: random.Random, mean: float) -> int:
    return max(0, round(rng.gauss(mean, mean**0.5)))


def _arrival_offset(rng: random.Random, days: float) -> int:
    """Three quarters of the work arrives between 08:00 and 20:00 UTC."""
    span = int(days * DAY_MS)
    day = rng.randrange(max(1, math.ceil(days)))
    hour = rng.uniform(8, 20) if rng.random() < 0.75 else rng.uniform(0, 24)
    offset = int(day * DAY_MS + hour * 3_600_000)
    if offset >= span:  # a partial last day: anywhere in what is left
        offset = int(rng.uniform(0, span))
    return offset // 1000 * 1000


def _arrivals(rng: random.Random, cls: WorkloadClass, at: int, index: int) -> list[tuple[int, Obj]]:
    out = []
    for trial in range(cls.sweep):
        minutes = rng.randint(*cls.minutes)
        stamp = f"{(at // 1000) % 10_000_000:07d}"
        name = f"{cls.name}-{stamp}-{index}" + (f"-t{trial:02d}" if cls.sweep > 1 else "")
        build = notebook if cls.notebook else job
        out.append((at + trial * 1000, build(cls, name, minutes * 60_000)))
    return out


def _pod_template(cls: WorkloadClass) -> Obj:
    container = {
        "name": "notebook" if cls.notebook else "trainer",
        "image": "registry.example.com/ml/pytorch:2.4",
        "resources": {
            "requests": {cls.resource: str(cls.gpus)},
            "limits": {cls.resource: str(cls.gpus)},
        },
    }
    spec: Obj = {"containers": [container]}
    if not cls.notebook:
        spec["restartPolicy"] = "Never"
    if cls.selector:
        spec["nodeSelector"] = {"gpu.nvidia.com/class": cls.selector}
    meta: Obj = {"labels": {"app": cls.name}}
    if cls.topology:  # "same rack": Kueue admits the gang only where one rack has room
        meta["annotations"] = {"kueue.x-k8s.io/podset-required-topology": cls.topology}
    return {"metadata": meta, "spec": spec}


def _metadata(cls: WorkloadClass, name: str, duration_ms: int) -> Obj:
    annotations = {
        "simcluster/duration": format_duration(duration_ms),
        "simcluster/utilization": cls.utilization,
    }
    if cls.checkpoint:
        annotations["quartermaster.io/checkpoint-interval"] = cls.checkpoint
    labels = {
        "kueue.x-k8s.io/queue-name": cls.team,
        "kueue.x-k8s.io/priority-class": cls.tier,
        "team": cls.team,
    }
    return {
        "name": name,
        "namespace": f"team-{cls.team}",
        "labels": labels,
        "annotations": annotations,
    }


def job(cls: WorkloadClass, name: str, duration_ms: int) -> Obj:
    spec = {
        "parallelism": cls.pods,
        "completions": cls.pods,
        "suspend": True,
        "backoffLimit": 0,
        "template": _pod_template(cls),
    }
    if cls.pods > 1:
        spec["completionMode"] = "Indexed"
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _metadata(cls, name, duration_ms),
        "spec": spec,
    }


def notebook(cls: WorkloadClass, name: str, duration_ms: int) -> Obj:
    template = _pod_template(cls)
    template["metadata"]["labels"]["notebook"] = name
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": _metadata(cls, name, duration_ms),
        "spec": {
            "replicas": 1,
            "serviceName": name,
            "selector": {"matchLabels": {"notebook": name}},
            "template": template,
        },
    }


def idle_notebook() -> Obj:
    """Alice's notebook as the portal renders one (apps/jobs/manifests.py: its labels,
    requests = limits, the flavor's node selector), left running with idle GPUs.

    The portal's demo adopts it as alice's (portal/demo/notebooks.py) and culls it for real:
    its cull task reads this pod's 0 % DCGM utilisation back from Prometheus.
    """
    labels = {
        "app.kubernetes.io/managed-by": "quartermaster",
        "quartermaster.io/team": "vision",
        "quartermaster.io/owner": "alice",
        "quartermaster.io/notebook": IDLE_NOTEBOOK,
        "kueue.x-k8s.io/queue-name": POOL,
        "kueue.x-k8s.io/priority-class": POOL_TIER,
    }
    flavor, _quota = POOL_QUOTA
    requests = {"cpu": "4", "memory": "32Gi", GPU: "1"}  # the demo's default profile
    container = {
        "name": "notebook",
        "image": "quay.io/jupyter/pytorch-notebook:cuda12-python-3.11",
        "ports": [{"name": "http", "containerPort": 8888}],
        "resources": {"requests": requests, "limits": dict(requests)},
    }
    selector = {"quartermaster.io/notebook": IDLE_NOTEBOOK}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {
            "name": IDLE_NOTEBOOK,
            "namespace": "team-vision",
            "labels": labels,
            "annotations": {"simcluster/utilization": "idle", "simcluster/duration": "24h"},
        },
        "spec": {
            "replicas": 1,
            "serviceName": IDLE_NOTEBOOK,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": dict(selector)},
                "spec": {
                    "containers": [container],
                    "nodeSelector": dict(FLAVORS[flavor][0]),
                },
            },
        },
    }


# ----- replay through a live controller ----------------------------------------------


def seed_history(
    controller: Any,
    days: float = 7,
    *,
    seed: int = 1,
    objects: list[Obj] | None = None,
    until_ms: int | None = None,
    pace: Callable[[int], None] | None = None,
    pace_every_ms: int = 3_600_000,
    load: float = 1.0,
) -> int:
    """Build the cluster's past ``days`` through ``controller`` (virtual clock); returns workloads submitted.

    The controller's clock must be virtual and set to the start of the period. With
    ``pace``, time stops every ``pace_every_ms`` of virtual time (and at the end) and
    ``pace(now_ms)`` is called, e.g. to wait for the API server's watchers to catch up.
    """
    from simcluster.controller.submit import Submitter

    submit = Submitter(controller)
    catalogue = objects or demo_objects()
    for obj in catalogue + nodes_for(catalogue + submit.existing_nodes()):
        submit.ensure(obj)
    start = controller.clock.now_ms()
    end = until_ms if until_ms is not None else start + int(days * DAY_MS)
    trace = generate_week(catalogue, days=days, seed=seed, start_ms=start, load=load)
    submitted, pause = 0, start + pace_every_ms
    for at, obj in trace:
        if at > end:
            continue
        while pace is not None and pause <= at:
            pace(controller.advance_to(pause))
            pause += pace_every_ms
        controller.advance_to(at, publish_queues=False)
        submit.ensure(obj)
        submitted += 1
    while pace is not None and pause < end:
        pace(controller.advance_to(pause))
        pause += pace_every_ms
    now = controller.advance_to(end)
    if pace is not None:
        pace(now)
    return submitted


class Trickle:
    """New demo jobs every ``20-60 s`` of real time (a thread; ``stop()`` ends it)."""

    def __init__(
        self, controller: Any, *, seed: int = 2, interval: tuple[float, float] = (20, 60)
    ) -> None:
        from simcluster.controller.submit import Submitter

        self._submit = Submitter(controller)
        self._clock: Callable[[], int] = controller.clock.now_ms
        self._rng = random.Random(seed)
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="simcluster-trickle", daemon=True)

    def start(self) -> Trickle:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        index = 0
        while not self._stop.wait(self._rng.uniform(*self._interval)):
            index += 1
            cls = self._rng.choice([c for c in CLASSES if c.sweep == 1])
            for _at, obj in _arrivals(self._rng, cls, self._clock(), index):
                obj["metadata"]["name"] = f"live-{obj['metadata']['name']}"
                self._submit.ensure(obj)
