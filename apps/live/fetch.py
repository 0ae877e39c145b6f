"""Every cluster read of the live views, in one place, behind a short shared cache.

One snapshot (ClusterQueues, LocalQueues, Workloads and the visibility API's pending
positions) serves every viewer for ``QM_LIVE_CACHE_SECONDS``, so a room full of open
pages costs the API server a few list calls every few seconds, not a few per viewer.
The cache is the shared one (Redis): every web process sees the same snapshot.

When the cluster does not answer, the views say so ("cluster unreachable since …")
and show the last snapshot they had, with its time; they never fail.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import caches
from django.utils import timezone

from apps.jobs.cluster import cluster_queue_positions, cluster_queue_ref
from apps.queues.kueue import GROUP
from core.kube import KubeClient, KubeError, ResourceRef
from informer.kinds import EVENT, NODE, POD, workload_ref

# A last good snapshot is shown (as such) this long while the cluster is unreachable.
LAST_GOOD_SECONDS = 3600


def local_queue_ref() -> ResourceRef:
    return ResourceRef(GROUP, settings.KUEUE_API_VERSION, "localqueues", "LocalQueue", True)


@dataclass
class Snapshot:
    """What the cluster said, when; or since when it has not answered."""

    fetched_at: str = ""
    cluster_queues: list[dict] = field(default_factory=list)
    local_queues: list[dict] = field(default_factory=list)
    workloads: list[dict] = field(default_factory=list)
    # ClusterQueue → {"namespace/name": position}, or None where the API did not answer.
    positions: dict[str, dict[str, int] | None] = field(default_factory=dict)
    # Nodes and the pods bound to them, slimmed to what topology domains need.
    nodes: list[dict] = field(default_factory=list)
    pods: list[dict] = field(default_factory=list)
    unreachable_since: str = ""
    detail: str = ""

    @property
    def reachable(self) -> bool:
        return not self.unreachable_since


def _cache():
    return caches["shared"]


def _key(name: str) -> str:
    # Per cluster: two portals (or two test clusters) sharing a Redis keep apart.
    cluster = hashlib.sha256(settings.KUBECONFIG.encode()).hexdigest()[:12]
    return f"live:{cluster}:{name}"


def snapshot() -> Snapshot:
    """The cluster's queues and workloads, at most ``QM_LIVE_CACHE_SECONDS`` old.

    When the snapshot expires, one caller reads the cluster (it holds a short lock in the
    shared cache); the others meanwhile get the previous snapshot instead of each sending
    the same list calls.
    """
    cached = _current()
    if cached is not None:
        return cached
    lock_seconds = 2 * settings.QM_KUBE_TIMEOUT_SECONDS + 1
    locked = _cache().add(_key("reading"), 1, timeout=lock_seconds)
    if not locked:
        previous = _restore(_cache().get(_key("last-good")))
        if previous is not None:
            previous.unreachable_since = _cache().get(_key("down-since")) or ""
            if previous.unreachable_since:
                previous.detail = _cache().get(_key("down-detail")) or ""
            return previous
    try:
        # Someone may have stored a snapshot between our miss and our lock.
        fresh = _current()
        if fresh is not None:
            return fresh
        with KubeClient() as kube:
            fresh = read_cluster(kube)
        _store(fresh)  # before the lock goes, or the next caller would read again
    except KubeError as exc:
        return _unreachable(exc)
    finally:
        if locked:  # without a previous snapshot to give, a second reader goes ahead
            _cache().delete(_key("reading"))
    return fresh


def _store(fresh: Snapshot) -> None:
    current = {_key("snapshot"): vars(fresh), _key("snapshot-at"): fresh.fetched_at}
    _cache().set_many(current, timeout=settings.QM_LIVE_CACHE_SECONDS)
    _cache().set(_key("last-good"), vars(fresh), timeout=LAST_GOOD_SECONDS)
    _cache().delete(_key("down-since"))


# The snapshot this process last unpickled, per cache key. Thousands of Workloads take
# a while to unpickle; a tiny "snapshot-at" key says whether this copy is still current.
# Callers never modify a Snapshot they are given.
_in_process: dict[str, Snapshot] = {}


def _current() -> Snapshot | None:
    key = _key("snapshot")
    stamp, mine = _cache().get(_key("snapshot-at")), _in_process.get(key)
    if stamp and mine is not None and mine.fetched_at == stamp:
        return mine
    cached = _restore(_cache().get(key))
    if cached is not None:
        _in_process[key] = cached
    return cached


def _restore(cached: dict | None) -> Snapshot | None:
    """A cached snapshot, or None if there is none or it has another shape (an upgrade)."""
    if cached is None:
        return None
    try:
        return Snapshot(**cached)
    except TypeError:
        return None


def _unreachable(exc: KubeError) -> Snapshot:
    now = timezone.now().isoformat()
    _cache().add(_key("down-since"), now, timeout=None)  # the first failure stays
    since = _cache().get(_key("down-since")) or now
    _cache().set(_key("down-detail"), exc.describe(), timeout=None)
    last = _restore(_cache().get(_key("last-good"))) or Snapshot()
    last.unreachable_since, last.detail = since, exc.describe()
    return last


def read_cluster(kube: KubeClient) -> Snapshot:
    cluster_queues = [_slim_queue(q) for q in kube.list(cluster_queue_ref())]
    positions = {
        _name(cq): cluster_queue_positions(kube, _name(cq))
        for cq in cluster_queues
        if int((cq.get("status") or {}).get("pendingWorkloads") or 0) > 0
    }
    return Snapshot(
        fetched_at=timezone.now().isoformat(),
        cluster_queues=cluster_queues,
        local_queues=[_slim_local_queue(q) for q in kube.list(local_queue_ref())],
        workloads=[slim_workload(w) for w in kube.list(workload_ref())],
        positions=positions,
        nodes=[_slim_node(n) for n in kube.list(NODE)],
        pods=[_slim_pod(p) for p in kube.list(POD, field_selector=BOUND_PODS)],
    )


# Pods that hold their node's resources: bound and not finished.
BOUND_PODS = "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed"


def _slim_node(node: dict) -> dict:
    status = node.get("status") or {}
    return {
        "name": _name(node),
        "labels": (node.get("metadata") or {}).get("labels") or {},
        "allocatable": status.get("allocatable") or {},
    }


def _slim_pod(pod: dict) -> dict:
    spec = pod.get("spec") or {}
    return {
        "name": _name(pod),
        "node": spec.get("nodeName") or "",
        "containers": _requests(spec.get("containers")),
        "init_containers": _requests(spec.get("initContainers")),
    }


def _requests(containers: list | None) -> list[dict]:
    """Each container's requests (its limits where it has none, as the API server
    defaults them)."""
    kept = []
    for c in containers or ():
        resources = c.get("resources") or {}
        kept.append(resources.get("requests") or resources.get("limits") or {})
    return kept


def workload_events(namespace: str, name: str) -> list[dict]:
    """Events whose involvedObject is this Workload (Kueue's and anyone else's)."""
    selector = f"involvedObject.kind=Workload,involvedObject.namespace={namespace},"
    selector += f"involvedObject.name={name}"
    return _cached_list(f"events:{namespace}/{name}", selector)


def preemption_events() -> list[dict]:
    """Every ``Preempted`` Event the API server still keeps (they name the preemptor)."""
    return _cached_list("preempted-events", "reason=Preempted")


def _cached_list(name: str, field_selector: str) -> list[dict]:
    cached = _cache().get(_key(name))
    if cached is not None:
        return cached
    with KubeClient() as kube:
        events = [_slim_event(e) for e in kube.list(EVENT, field_selector=field_selector)]
    _cache().set(_key(name), events, timeout=settings.QM_LIVE_CACHE_SECONDS)
    return events


def workload(namespace: str, name: str, taken: Snapshot) -> dict | None:
    """The Workload from the snapshot, or straight from the cluster if it is newer."""
    for w in taken.workloads:
        meta = w["metadata"]
        if meta.get("namespace") == namespace and meta.get("name") == name:
            return w
    if not taken.reachable:
        return None
    with KubeClient() as kube:
        found = kube.get(workload_ref(), name, namespace)
    return slim_workload(found) if found else None


def _name(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("name", "")


def _slim_meta(meta: dict) -> dict:
    keep = ("name", "namespace", "uid", "creationTimestamp", "ownerReferences")
    return {k: meta[k] for k in keep if k in meta}


def _slim_queue(cq: dict) -> dict:
    return {"metadata": _slim_meta(cq.get("metadata") or {}), **_pick(cq, "spec", "status")}


def _slim_local_queue(lq: dict) -> dict:
    spec = lq.get("spec") or {}
    return {
        "metadata": _slim_meta(lq.get("metadata") or {}),
        "spec": {"clusterQueue": spec.get("clusterQueue", "")},
    }


def slim_workload(w: dict) -> dict:
    """What the live views read of a Workload (pod templates shrink to their requests)."""
    spec = w.get("spec") or {}
    pod_sets = [
        {
            "name": p.get("name", ""),
            "count": p.get("count", 1),
            "template": {"spec": {"containers": _containers(p)}},
            **_pick(p, "topologyRequest"),
        }
        for p in spec.get("podSets") or ()
    ]
    status = w.get("status") or {}
    return {
        "metadata": _slim_meta(w.get("metadata") or {}),
        "spec": {
            "queueName": spec.get("queueName", ""),
            "priority": spec.get("priority") or 0,
            # The tier names the class: an inference service is told apart by its tier alone.
            **_pick(spec, "priorityClassRef", "priorityClassName"),
            "podSets": pod_sets,
        },
        "status": {k: status[k] for k in ("conditions", "admission") if k in status},
    }


def _containers(pod_set: dict) -> list[dict]:
    containers = ((pod_set.get("template") or {}).get("spec") or {}).get("containers") or ()
    return [
        {"resources": {"requests": (c.get("resources") or {}).get("requests") or {}}}
        for c in containers
    ]


def _slim_event(e: dict) -> dict:
    keep = ("type", "reason", "message", "firstTimestamp", "lastTimestamp", "eventTime", "count")
    return {**{k: e[k] for k in keep if k in e}, "involvedObject": e.get("involvedObject") or {}}


def _pick(obj: dict, *keys: str) -> dict:
    return {k: obj[k] for k in keys if k in obj}
