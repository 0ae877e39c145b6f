"""Observed state: what the cluster holds, read through ``core.kube``."""

from __future__ import annotations

from apps.queues import kueue
from apps.queues.reconcile.plan import HOLDABLE, Key
from core.kube import KubeClient, ResourceRef
from informer import objects

WORKLOAD = "Workload"
_KUEUE_KINDS = {
    kueue.TOPOLOGY: ("topologies", False),
    kueue.RESOURCE_FLAVOR: ("resourceflavors", False),
    kueue.COHORT: ("cohorts", False),
    kueue.WORKLOAD_PRIORITY_CLASS: ("workloadpriorityclasses", False),
    kueue.CLUSTER_QUEUE: ("clusterqueues", False),
    kueue.LOCAL_QUEUE: ("localqueues", True),
    WORKLOAD: ("workloads", True),
}


def ref(kind: str, version: str) -> ResourceRef:
    """Where ``kind`` is served when we speak Kueue ``version``."""
    if kind == kueue.NAMESPACE:
        return ResourceRef("", "v1", "namespaces", kind, False)
    if kind == kueue.PERSISTENT_VOLUME_CLAIM:
        return ResourceRef("", "v1", "persistentvolumeclaims", kind, True)
    plural, namespaced = _KUEUE_KINDS[kind]
    return ResourceRef(kueue.GROUP, version, plural, kind, namespaced)


def observe(client: KubeClient, version: str) -> dict[Key, dict]:
    """Every object of the kinds we manage, labelled or not (to spot name clashes)."""
    objects: dict[Key, dict] = {}
    for kind in kueue.KINDS:
        for obj in client.list(ref(kind, version)):
            objects[kueue.object_key(obj)] = obj
    return objects


def prune_candidates(desired: list[dict], observed: dict[Key, dict]) -> list[Key]:
    """Our queues that are no longer desired: the only ones whose workloads matter."""
    wanted = {kueue.object_key(obj) for obj in desired}
    return [
        key
        for key, obj in observed.items()
        if key[0] in HOLDABLE and key not in wanted and kueue.is_managed(obj)
    ]


def busy_counts(client: KubeClient, version: str, candidates: list[Key]) -> dict[Key, int]:
    """Admitted or quota-reserving workloads per candidate queue.

    Pending workloads do not count: a held queue admits nothing, so waiting for
    them would keep it forever.
    """
    if not candidates:
        return {}
    counts: dict[Key, int] = {}
    for workload in client.list(ref(WORKLOAD, version)):
        for key in _queues_of(workload):
            counts[key] = counts.get(key, 0) + 1
    return {key: counts.get(key, 0) for key in candidates}


def _queues_of(workload: dict) -> list[Key]:
    cluster_queue = objects.cluster_queue(workload)
    if not cluster_queue:
        return []
    namespace = workload["metadata"].get("namespace", "")
    local = objects.queue_name(workload)
    keys = [(kueue.CLUSTER_QUEUE, "", cluster_queue)]
    if local:
        keys.append((kueue.LOCAL_QUEUE, namespace, local))
    return keys


def status_counts(observed: dict[Key, dict], candidates: list[Key]) -> dict[Key, int]:
    """Kueue's own counters on the queue status, a second opinion on ``busy_counts``."""
    counts = {}
    for key in candidates:
        status = observed[key].get("status") or {}
        # Reserving workloads include the admitted ones.
        counts[key] = max(
            int(status.get("reservingWorkloads") or 0), int(status.get("admittedWorkloads") or 0)
        )
    return counts
