"""Turn store changes into controller actions; rebuild everything from the store on demand.

``on_event`` handles one change made by someone else (users, kubectl, the
portal, the demo generator); our own writes never reach it.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

from kueuemodel import Simulation, parse_timestamp
from simcluster.server import resources
from simcluster.server.store import StoredEvent

from . import devices, integration, pods
from .devices import DeviceTable
from .owners import (
    ADMISSION_GATE,
    JOB,
    MANAGED_LABEL,
    POD,
    STATEFULSET,
    Owner,
    owner_of,
    priority_class,
    workload_for,
)
from .recorder import GpuRun, Recorder
from .state import PodRecord, Tracked, phase_of
from .writer import JOBS, PODS, WORKLOADS

if TYPE_CHECKING:
    from .controller import Controller

Obj = dict[str, Any]
CONFIG_KINDS = {
    ("", "namespaces"): "Namespace",
    ("", "nodes"): "Node",
    (resources.KUEUE_GROUP, "resourceflavors"): "ResourceFlavor",
    (resources.KUEUE_GROUP, "topologies"): "Topology",
    (resources.KUEUE_GROUP, "cohorts"): "Cohort",
    (resources.KUEUE_GROUP, "clusterqueues"): "ClusterQueue",
    (resources.KUEUE_GROUP, "localqueues"): "LocalQueue",
    (resources.KUEUE_GROUP, "workloadpriorityclasses"): "WorkloadPriorityClass",
}
OWNER_KINDS = {("batch", "jobs"): JOB, ("", "pods"): POD, ("apps", "statefulsets"): STATEFULSET}
WORKLOADS_KEY = (resources.KUEUE_GROUP, "workloads")


# ----- the change stream ---------------------------------------------------------


def on_event(ctl: Controller, event: StoredEvent) -> None:
    if event.resource in CONFIG_KINDS:
        _config_event(ctl, event)
    elif event.resource == WORKLOADS_KEY:
        _workload_event(ctl, event)
    elif event.resource in OWNER_KINDS:
        obj = {**event.obj, "kind": OWNER_KINDS[event.resource]}
        _owner_event(ctl, event.type, obj)


def _config_event(ctl: Controller, event: StoredEvent) -> None:
    key = (*event.resource, _object_key(event.obj))
    before = ctl.fingerprints.get(key)
    after = None if event.type == "DELETED" else fingerprint(event.obj)
    if before != after:
        ctl.fingerprints[key] = after
        ctl.config_dirty = True


def fingerprint(obj: Obj) -> str:
    """What scheduling reads from a quota object (not status, not bookkeeping)."""
    meta = obj.get("metadata") or {}
    status = obj.get("status") or {}
    relevant = {
        "labels": meta.get("labels"),
        "spec": obj.get("spec"),
        "value": obj.get("value"),
        "allocatable": status.get("allocatable") or status.get("capacity"),
        "deleting": bool(meta.get("deletionTimestamp")),
    }
    return json.dumps(relevant, sort_keys=True)


def _object_key(obj: Obj) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name')}"


def _workload_event(ctl: Controller, event: StoredEvent) -> None:
    key = _object_key(event.obj)
    if event.type == "ADDED" and key not in ctl.tracked:
        _track_foreign_workload(ctl, event.obj)
    elif event.type == "DELETED" and key in ctl.tracked:
        drop(ctl, ctl.tracked[key])


def _track_foreign_workload(ctl: Controller, obj: Obj) -> None:
    """A Workload created directly (not through a Job/Pod/StatefulSet)."""
    meta = obj.get("metadata") or {}
    t = Tracked(meta.get("namespace") or "default", meta["name"])
    ctl.tracked[t.key] = t
    ctl.sim.add_workload({**copy.deepcopy(obj), "kind": "Workload"})
    ctl.touched.add(t.key)


def _owner_event(ctl: Controller, kind: str, obj: Obj) -> None:
    meta = obj.get("metadata") or {}
    key = (obj["kind"], meta.get("namespace") or "default", meta.get("name"))
    if kind == "ADDED":
        adopt(ctl, obj)
    elif kind == "DELETED":
        ctl.blocked.pop(key, None)
        if key in ctl.by_owner:
            drop(ctl, ctl.tracked[ctl.by_owner[key]])
    elif obj["kind"] == STATEFULSET:
        _scale(ctl, key, obj)


# ----- adopting a Job, Pod or StatefulSet -----------------------------------------


def adopt(ctl: Controller, obj: Obj) -> None:
    """Create the Workload for a queue-labelled object (Kueue's integration reconciler)."""
    if obj["kind"] == POD and (obj.get("metadata") or {}).get("ownerReferences"):
        return  # pods of Jobs and StatefulSets belong to their controller's Workload
    owner = owner_of(obj)
    if owner is None or owner.key in ctl.by_owner or owner.count == 0:
        return
    priority = _priority(ctl, owner, obj)
    if priority is False:
        return
    _prepare(ctl, owner, obj)
    stored = _create_workload(ctl, workload_for(owner, obj, priority))
    if stored is None:
        return
    t = Tracked(owner.namespace, owner.workload, owner)
    ctl.tracked[t.key] = t
    ctl.by_owner[owner.key] = t.key
    ctl.sim.add_workload(stored)
    ctl.touched.add(t.key)


def _priority(ctl: Controller, owner: Owner, obj: Obj) -> int | None | bool:
    """The class's value, None without a class, False when the class is missing."""
    name = priority_class(obj)
    if not name:
        return None
    if name not in ctl.sim.cluster.priority_classes:
        ctl.blocked[owner.key] = obj
        message = f'workloadPriorityClass "{name}" not found'
        ctl.emit_event(
            integration.owner_ref(Tracked(owner.namespace, "", owner)),
            "WorkloadPriorityClassNotFound",
            message,
            "Warning",
        )
        return False
    return ctl.sim.cluster.priority_classes[name]


def _prepare(ctl: Controller, owner: Owner, obj: Obj) -> None:
    """What Kueue's webhooks would have done: suspend the Job, gate the pods."""
    spec = obj.get("spec") or {}
    if owner.kind == JOB:
        owner.suspended = True
        if not spec.get("suspend"):
            ctl.writer.merge(JOBS, owner.namespace, owner.name, {"spec": {"suspend": True}})
    elif owner.kind == POD:
        gates = [g for g in spec.get("schedulingGates") or () if g.get("name") != ADMISSION_GATE]
        patch = {
            "metadata": {"labels": {MANAGED_LABEL: "true"}},
            "spec": {"schedulingGates": [*gates, {"name": ADMISSION_GATE}]},
        }
        ctl.writer.merge(PODS, owner.namespace, owner.name, patch)
        ctl.writer.put_status(
            PODS, owner.namespace, owner.name, pods.gated_status(ctl.clock.now_ms())
        )
    else:
        integration.create_gated_pods(
            ctl,
            owner,
            (obj.get("metadata") or {}).get("labels", {}).get("kueue.x-k8s.io/queue-name", ""),
        )


def _create_workload(ctl: Controller, wl: Obj) -> Obj | None:
    """Create it, or take over the one left from before (a StatefulSet scaled back up)."""
    stored = ctl.writer.create(WORKLOADS, wl)
    if stored is None:
        meta = wl["metadata"]
        stored = ctl.store.get(WORKLOADS_KEY, (meta["namespace"], meta["name"]))
        if stored is None:
            return None
        stored.get("status", {}).pop("admission", None)
    return {**copy.deepcopy(stored), "kind": "Workload"}


def _scale(ctl: Controller, key: tuple[str, str, str], obj: Obj) -> None:
    """StatefulSet replicas 0 releases the quota (Workload kept, OnHold); back up requeues."""
    replicas = int((obj.get("spec") or {}).get("replicas", 1))
    if replicas == 0 and key in ctl.by_owner:
        t = ctl.tracked[ctl.by_owner[key]]
        integration.hold(ctl, t)
    elif replicas > 0 and key not in ctl.by_owner:
        ctl.blocked.pop(key, None)
        adopt(ctl, obj)


def retry_blocked(ctl: Controller) -> None:
    for key, obj in list(ctl.blocked.items()):
        del ctl.blocked[key]
        adopt(ctl, obj)


def drop(ctl: Controller, t: Tracked) -> None:
    """The owner or the Workload is gone: free the pods, the devices and the Workload."""
    now = ctl.clock.now_ms()
    for record in t.pods:
        integration.release_pod(ctl, t, record, now)
        if not (t.owner and t.owner.kind == POD):
            ctl.writer.delete(PODS, t.namespace, record.name)
    ctl.writer.delete(WORKLOADS, t.namespace, t.name)
    ctl.forget(t)


# ----- rebuilding from the store ---------------------------------------------------


def config_objects(ctl: Controller) -> list[Obj]:
    """Every quota-relevant object, as manifests the engine can read."""
    out = [ctl.kueue_config] if ctl.kueue_config else []
    for key, kind in CONFIG_KINDS.items():
        out.extend({**obj, "kind": kind} for obj in ctl.store.list(key))
    return out


def stored_workloads(ctl: Controller) -> list[Obj]:
    """Unfinished Workloads as stored (status included, so reservations survive)."""
    return [
        {**obj, "kind": "Workload"}
        for obj in ctl.store.list(WORKLOADS_KEY)
        if not _finished(obj) and _object_key(obj) in ctl.tracked
    ]


def _finished(obj: Obj) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or ()
    return any(c.get("type") == "Finished" and c.get("status") == "True" for c in conditions)


def pin_placements(ctl: Controller, sim: Simulation) -> None:
    """Keep running pods where they are: the new engine must not move them."""
    cluster = sim.cluster
    for key, t in ctl.tracked.items():
        wl = cluster.workloads.get(key)
        running = [p for p in t.pods if p.phase == "Running" and p.node in cluster.nodes]
        if wl is None or wl.admission is None or not running or not wl.pod_sets:
            continue
        cluster.placements[key] = [(p.node, wl.pod_sets[0].per_pod) for p in running]
        cluster.unplaced.pop(key, None)
        wl.placement_problem = None
        wl.started_ms = min(p.start_ms or 0 for p in running)
    cluster.free = {name: dict(node.allocatable) for name, node in cluster.nodes.items()}
    for bindings in cluster.placements.values():
        for node, requests in bindings:
            for resource, amount in requests.items():
                cluster.free[node][resource] = cluster.free[node].get(resource, 0) - amount
    cluster.started = [
        (wl, wl.started_ms if wl.started_ms is not None else at) for wl, at in cluster.started
    ]
    integration.restore_progress(cluster.workloads.values())


def resync(ctl: Controller) -> None:
    """Forget everything and rebuild from the store (start-up, or a lost change stream)."""
    with ctl.store.lock:
        ctl.last_rv = ctl.store.resource_version
        objects = {key: ctl.store.list(key) for key in (*CONFIG_KINDS, *OWNER_KINDS, WORKLOADS_KEY)}
    ctl.fingerprints = {
        (*key, _object_key(obj)): fingerprint(obj) for key in CONFIG_KINDS for obj in objects[key]
    }
    ctl.tracked, ctl.by_owner, ctl.blocked = {}, {}, {}
    ctl.devices, ctl.recorder = DeviceTable(), Recorder()
    owners = _owners_by_uid(objects)
    for obj in objects[WORKLOADS_KEY]:
        _track_stored(ctl, obj, owners)
    _read_pods(ctl, objects[("", "pods")])
    ctl.sim = ctl._new_simulation(config_objects(ctl) + stored_workloads(ctl))
    for key, t in ctl.tracked.items():
        wl = ctl.sim.cluster.workloads.get(key)
        t.phase = phase_of(wl) if wl is not None else None
    for key, kind in OWNER_KINDS.items():
        for obj in objects[key]:
            adopt(ctl, {**obj, "kind": kind})
    ctl.changed = True


def _owners_by_uid(objects: dict[Any, list[Obj]]) -> dict[str, tuple[Owner, Obj]]:
    out = {}
    for key, kind in OWNER_KINDS.items():
        for obj in objects[key]:
            owner = owner_of({**obj, "kind": kind})
            if owner is not None:
                owner.suspended = bool((obj.get("spec") or {}).get("suspend"))
                out[owner.uid] = (owner, obj)
    return out


def _track_stored(ctl: Controller, obj: Obj, owners: dict[str, tuple[Owner, Obj]]) -> None:
    meta = obj.get("metadata") or {}
    t = Tracked(
        meta.get("namespace") or "default",
        meta["name"],
        status=copy.deepcopy(obj.get("status") or {}),
    )
    for ref in meta.get("ownerReferences") or ():
        if ref.get("uid") in owners:
            t.owner = owners[ref["uid"]][0]
            ctl.by_owner[t.owner.key] = t.key
    ctl.tracked[t.key] = t


def _read_pods(ctl: Controller, stored_pods: list[Obj]) -> None:
    for pod in stored_pods:
        meta = pod.get("metadata") or {}
        wl_name = (meta.get("annotations") or {}).get(pods.WORKLOAD_ANNOTATION)
        t = ctl.tracked.get(f"{meta.get('namespace')}/{wl_name}")
        if t is None:
            continue
        record = _pod_record(pod)
        t.pods.append(record)
        if record.phase == "Running":
            _claim(ctl, t, record, pod)


def _pod_record(pod: Obj) -> PodRecord:
    status, spec = pod.get("status") or {}, pod.get("spec") or {}
    start = status.get("startTime")
    return PodRecord(
        pod["metadata"]["name"],
        spec.get("nodeName"),
        status.get("phase", "Pending"),
        parse_timestamp(start) if start else None,
        devices.decode((pod["metadata"].get("annotations") or {}).get(pods.DEVICES_ANNOTATION, "")),
        integration.gpu_container(spec),
    )


def _claim(ctl: Controller, t: Tracked, record: PodRecord, pod: Obj) -> None:
    utilization = (pod["metadata"].get("annotations") or {}).get(
        integration.UTILIZATION_ANNOTATION, ""
    )
    for resource, slots in record.devices.items():
        ctl.devices.claim(record.node or "", resource, slots)
        ctl.recorder.start(
            [
                GpuRun(
                    t.namespace,
                    record.name,
                    record.container,
                    record.node or "",
                    resource,
                    slot,
                    record.start_ms or 0,
                    utilization,
                    **integration.pod_owner(t.owner),
                )
                for slot in slots
            ]
        )
