"""Drive a Workload's owner (Job, Pod, StatefulSet) and pods through admit, evict and finish.

Called by the controller when a Workload's run phase changes; mirrors what
Kueue's job integrations, the Job/StatefulSet controllers, kube-scheduler
and the kubelet would do between them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kueuemodel import Workload, format_timestamp, parse_duration, set_condition

from . import devices, pods, volumes
from .owners import JOB, POD, STATEFULSET, WORKLOAD_ANNOTATION, Owner
from .recorder import GpuRun, PodWait
from .state import ACTIVE, FINISHED, RUNNING, PodRecord, Tracked
from .writer import JOBS, PODS, WORKLOADS

if TYPE_CHECKING:
    from .controller import Controller

Obj = dict[str, Any]
CHECKPOINT_ANNOTATION = "simcluster/checkpoint-interval"
# The checkpoint contract's report (docs/checkpoints.md): what a real job's checkpoint
# hook writes, the simulator writes too; lost and saved work stay its own bookkeeping.
LAST_CHECKPOINT = "quartermaster.io/last-checkpoint"
LOST_WORK = "simcluster/lost-work-seconds"
SAVED_WORK = "simcluster/saved-work-seconds"
UTILIZATION_ANNOTATION = "simcluster/utilization"


def transition(ctl: Controller, t: Tracked, wl: Workload, cur: tuple[str, int, int | None]) -> None:
    """Move pods and owner from ``t.phase`` to ``cur``."""
    was = t.phase[0] if t.phase else "waiting"
    restarted = t.phase is not None and t.phase[1] != cur[1]
    if was in ACTIVE and (cur[0] not in (*ACTIVE, FINISHED) or restarted):
        stop(ctl, t, wl)
        was = "waiting"
    if cur[0] in ACTIVE and (was not in ACTIVE or cur[0] != was):
        start(ctl, t, wl, running=cur[0] == RUNNING)
    if cur[0] == FINISHED:
        finish(ctl, t, wl)


# ----- start -----------------------------------------------------------------


def start(ctl: Controller, t: Tracked, wl: Workload, running: bool) -> None:
    """Unsuspend/ungate and put pods on their nodes (or leave them unschedulable)."""
    owner = t.owner
    if owner is None:
        return
    if owner.kind == JOB and owner.suspended:
        _resume_job(ctl, t, wl)
    if owner.kind == JOB:
        _delete_pods(ctl, t)  # pending pods of an unplaced gang make way for bound ones
    selector, tolerations = pods.flavor_injection(wl.admission, ctl.sim.cluster.flavors)
    spec = pods.injected_spec(owner, selector, tolerations)
    names = pods.pod_names(owner, wl.evictions)
    bindings = ctl.sim.cluster.placements.get(wl.key) or [] if running else []
    t.pods = [
        _start_pod(ctl, t, wl, name, spec, bindings[i][0] if i < len(bindings) else None, running)
        for i, name in enumerate(names)
    ]


def _start_pod(
    ctl: Controller,
    t: Tracked,
    wl: Workload,
    name: str,
    spec: Obj,
    node: str | None,
    running: bool,
) -> PodRecord:
    now = ctl.clock.now_ms()
    pod_spec = {**spec, "nodeName": node} if node else dict(spec)
    record = PodRecord(name, node, "Pending", container=gpu_container(pod_spec))
    if running:
        ctl.recorder.end(t.namespace, name, now)  # a pod that waited for a node got one
        record.phase, record.start_ms = "Running", wl.started_ms or now
        record.devices = _allocate(ctl, t, wl, record)
        status = pods.running_status(pod_spec, record.start_ms, node)
    else:
        problem = wl.placement_problem or "no node fits"
        status = pods.pending_status(problem, len(ctl.sim.cluster.nodes), now)
        ctl.recorder.wait(_waits(t, wl, record, now))
    _write_pod(ctl, t, wl, record, pod_spec)
    ctl.writer.put_status(PODS, t.namespace, name, status)
    return record


def _write_pod(ctl: Controller, t: Tracked, wl: Workload, record: PodRecord, spec: Obj) -> None:
    """Job pods are created now; plain and StatefulSet pods exist and lose their gate."""
    owner = t.owner
    annotations = (
        {pods.DEVICES_ANNOTATION: devices.encode(record.devices)} if record.devices else {}
    )
    if owner.kind == JOB:
        pod = pods.new_pod(owner, record.name, spec, pods.owner_labels(owner, wl.queue_name))
        pod["metadata"]["annotations"].update(annotations)
        ctl.writer.create(PODS, pod)
        return
    patch = {"schedulingGates": None, "nodeName": record.node, **_placement_fields(spec)}
    body: Obj = {"spec": patch}
    if annotations:
        body["metadata"] = {"annotations": annotations}
    ctl.writer.merge(PODS, t.namespace, record.name, body)


def _waits(t: Tracked, wl: Workload, record: PodRecord, now: int) -> list[PodWait]:
    per_pod = wl.pod_sets[0].per_pod if wl.pod_sets else {}
    return [
        PodWait(t.namespace, record.name, record.container, resource, milli // 1000, now,
                **pod_owner(t.owner))
        for resource, milli in sorted(per_pod.items())
        if devices.is_gpu_resource(resource) and milli >= 1000
    ]  # fmt: skip


def _placement_fields(spec: Obj) -> Obj:
    return {k: spec[k] for k in ("nodeSelector", "tolerations") if k in spec}


def pod_owner(owner: Owner | None) -> dict[str, str]:
    """The pod's controller as kube-state-metrics names it; a bare pod has ``<none>``."""
    if owner is None or owner.kind == POD:
        return {"owner_kind": "<none>", "owner_name": "<none>"}
    return {"owner_kind": owner.kind, "owner_name": owner.name}


def gpu_container(spec: Obj) -> str:
    containers = spec.get("containers") or [{}]
    for container in containers:
        requested = {**((container.get("resources") or {}).get("limits") or {})}
        requested.update((container.get("resources") or {}).get("requests") or {})
        if any(devices.is_gpu_resource(r) for r in requested):
            return container.get("name", "main")
    return containers[0].get("name", "main")


def _allocate(ctl: Controller, t: Tracked, wl: Workload, record: PodRecord) -> dict[str, list[int]]:
    per_pod = wl.pod_sets[0].per_pod if wl.pod_sets else {}
    held: dict[str, list[int]] = {}
    for resource, milli in sorted(per_pod.items()):
        if devices.is_gpu_resource(resource) and milli and record.node:
            held[resource] = ctl.devices.allocate(record.node, resource, milli // 1000)
    utilization = t.owner.annotations.get(UTILIZATION_ANNOTATION, "") if t.owner else ""
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
                **pod_owner(t.owner),
            )
            for resource, slots in held.items()
            for slot in slots
        ]
    )
    return held


def _resume_job(ctl: Controller, t: Tracked, wl: Workload) -> None:
    owner = t.owner
    selector, tolerations = pods.flavor_injection(wl.admission, ctl.sim.cluster.flavors)
    template = copy.deepcopy(owner.template)
    template["spec"] = {
        **(template.get("spec") or {}),
        **_placement_fields(pods.injected_spec(owner, selector, tolerations)),
    }
    template.setdefault("metadata", {}).setdefault("annotations", {})[WORKLOAD_ANNOTATION] = (
        owner.workload
    )
    ops = [
        {"op": "add", "path": "/spec/suspend", "value": False},
        {"op": "add", "path": "/spec/template", "value": template},
    ]
    ctl.writer.json_patch(JOBS, owner.namespace, owner.name, ops)
    owner.suspended = False
    now = format_timestamp(ctl.clock.now_ms())
    status = {
        "startTime": now,
        "active": owner.count,
        "conditions": [_job_condition("Suspended", "False", "JobResumed", "Job resumed", now)],
    }
    ctl.writer.put_status(JOBS, owner.namespace, owner.name, status)
    cq = wl.admission.cluster_queue if wl.admission else ""
    ctl.emit_event(owner_ref(t), "Started", f"Admitted by clusterQueue {cq}")


def owner_ref(t: Tracked) -> Obj:
    owner = t.owner
    return {
        "apiVersion": owner.reference()["apiVersion"],
        "kind": owner.kind,
        "namespace": owner.namespace,
        "name": owner.name,
        "uid": owner.uid,
    }


def _job_condition(kind: str, status: str, reason: str, message: str, at: str) -> Obj:
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message,
        "lastProbeTime": at,
        "lastTransitionTime": at,
    }


# ----- stop (eviction) ---------------------------------------------------------


def stop(ctl: Controller, t: Tracked, wl: Workload) -> None:
    """Eviction: pods go away, the Job is suspended again, the loss is recorded."""
    owner = t.owner
    if owner is None:
        return
    _record_loss(ctl, t, wl)
    _delete_pods(ctl, t)
    message = _eviction_message(wl)
    if owner.kind == JOB:
        _suspend_job(ctl, t, message)
    elif owner.kind == STATEFULSET:
        _recreate_gated(ctl, t)
    elif owner.kind == POD:
        # A preempted plain pod is gone for good; its creator must submit it again.
        ctl.forget(t)
    ctl.emit_event(owner_ref(t), "Stopped", message)


def _eviction_message(wl: Workload) -> str:
    for condition in (wl.obj.get("status") or {}).get("conditions") or ():
        if condition["type"] == "Evicted" and condition["status"] == "True":
            return condition["message"]
    return "The workload was evicted"


def _delete_pods(ctl: Controller, t: Tracked) -> None:
    now = ctl.clock.now_ms()
    for record in t.pods:
        release_pod(ctl, t, record, now)
        ctl.writer.delete(PODS, t.namespace, record.name)
    t.pods = []


def release_pod(ctl: Controller, t: Tracked, record: PodRecord, now: int) -> None:
    for resource, slots in record.devices.items():
        ctl.devices.release(record.node or "", resource, slots)
    record.devices = {}
    ctl.recorder.end(t.namespace, record.name, now)


def _suspend_job(ctl: Controller, t: Tracked, message: str) -> None:
    owner = t.owner
    ops = [
        {"op": "add", "path": "/spec/suspend", "value": True},
        {"op": "add", "path": "/spec/template", "value": copy.deepcopy(owner.template)},
    ]
    ctl.writer.json_patch(JOBS, owner.namespace, owner.name, ops)
    owner.suspended = True
    now = format_timestamp(ctl.clock.now_ms())
    condition = _job_condition("Suspended", "True", "JobSuspended", message, now)
    ctl.writer.put_status(
        JOBS, owner.namespace, owner.name, {"active": 0, "conditions": [condition]}
    )


def _recreate_gated(ctl: Controller, t: Tracked) -> None:
    """The StatefulSet controller brings the pods back; Kueue gates them again."""
    create_gated_pods(ctl, t.owner, ctl.queue_of(t))


def create_gated_pods(ctl: Controller, owner: Owner, queue: str) -> None:
    labels = pods.owner_labels(owner, queue)
    spec = pods.pod_template_spec(owner)
    for name in pods.pod_names(owner, 0):
        pod = pods.new_pod(owner, name, spec, labels, gated=True)
        pod["metadata"]["annotations"].update(pods.group_annotations(owner))
        ctl.writer.create(PODS, pod)
        ctl.writer.put_status(PODS, owner.namespace, name, pods.gated_status(ctl.clock.now_ms()))


def _record_loss(ctl: Controller, t: Tracked, wl: Workload) -> None:
    """Work since the last checkpoint (or since the start) is lost on eviction."""
    started = next((r.start_ms for r in t.pods if r.start_ms is not None), None)
    if started is None:
        return
    now = ctl.clock.now_ms()
    saved_from = volumes.resume_point(ctl, t, started)
    lost = int(_annotation(wl, LOST_WORK) or 0) + (now - saved_from) // 1000
    saved = int(_annotation(wl, SAVED_WORK) or 0) + (saved_from - started) // 1000
    _annotate(ctl, t, {LOST_WORK: str(lost), SAVED_WORK: str(saved)})
    if wl.duration_ms is not None:
        # Resume from the checkpoint: only the unsaved part has to run again.
        wl.duration_ms = max(0, wl.duration_ms - (saved_from - started))
    t.checkpoint_ms = None


def restore_progress(workloads: Iterable[Workload]) -> None:
    """A rebuilt engine reads full durations; take off what checkpoints already saved."""
    for wl in workloads:
        saved = _annotation(wl, SAVED_WORK)
        if saved and wl.duration_ms is not None:
            wl.duration_ms = max(0, wl.duration_ms - int(saved) * 1000)


def hold(ctl: Controller, t: Tracked) -> None:
    """StatefulSet scaled to zero: quota released, Workload kept with QuotaReserved=False OnHold."""
    _delete_pods(ctl, t)
    status = copy.deepcopy(t.status or {})
    holder = {"status": status, "metadata": {}}
    now = ctl.clock.now_ms()
    message = "The workload is on hold: its StatefulSet has zero replicas"
    set_condition(holder, "QuotaReserved", "False", "OnHold", message, now)
    set_condition(
        holder, "Admitted", "False", "NoReservation", "The workload has no reservation", now
    )
    status.pop("admission", None)
    ctl.writer.put_status(WORKLOADS, t.namespace, t.name, status)
    ctl.forget(t)


def _annotation(wl: Workload, key: str) -> str | None:
    return ((wl.obj.get("metadata") or {}).get("annotations") or {}).get(key)


def _annotate(ctl: Controller, t: Tracked, values: dict[str, str]) -> None:
    wl = ctl.sim.cluster.workloads.get(t.key)
    if wl is not None:
        wl.obj.setdefault("metadata", {}).setdefault("annotations", {}).update(values)
    patch = {"metadata": {"annotations": values}}
    ctl.write_workload_meta(t, patch)
    if t.owner is not None and t.owner.kind == JOB:
        ctl.writer.merge(JOBS, t.namespace, t.owner.name, patch)


# ----- finish and checkpoints ---------------------------------------------------


def finish(ctl: Controller, t: Tracked, wl: Workload) -> None:
    owner = t.owner
    if owner is None:
        return
    now = ctl.clock.now_ms()
    spec = pods.pod_template_spec(owner)
    for record in t.pods:
        if record.phase == "Running":
            release_pod(ctl, t, record, now)
            status = pods.succeeded_status(spec, record.start_ms or now, now)
            ctl.writer.put_status(PODS, t.namespace, record.name, status)
            record.phase = "Succeeded"
    if owner.kind == JOB:
        _complete_job(ctl, t, now)


def _complete_job(ctl: Controller, t: Tracked, now_ms: int) -> None:
    owner = t.owner
    now = format_timestamp(now_ms)
    started = min((r.start_ms for r in t.pods if r.start_ms), default=now_ms)
    status = {
        "startTime": format_timestamp(started),
        "completionTime": now,
        "active": 0,
        "ready": 0,
        "succeeded": owner.count,
        "conditions": [
            _job_condition(
                "SuccessCriteriaMet",
                "True",
                "CompletionsReached",
                "Reached expected number of succeeded pods",
                now,
            ),
            _job_condition(
                "Complete",
                "True",
                "CompletionsReached",
                "Reached expected number of succeeded pods",
                now,
            ),
        ],
    }
    ctl.writer.put_status(JOBS, owner.namespace, owner.name, status)
    ctl.emit_event(owner_ref(t), "Completed", "Job completed")


def checkpoint(ctl: Controller, t: Tracked) -> None:
    """Publish the newest checkpoint a running job has reached."""
    interval = _interval(t)
    started = next((r.start_ms for r in t.pods if r.phase == "Running" and r.start_ms), None)
    if not interval or started is None:
        return
    reached = (ctl.clock.now_ms() - started) // interval
    if reached < 1:
        return
    last = started + reached * interval
    if last != t.checkpoint_ms:
        t.checkpoint_ms = last
        volumes.save_checkpoint(ctl, t, last)
        _annotate(ctl, t, {LAST_CHECKPOINT: format_timestamp(last)})


def _interval(t: Tracked) -> int | None:
    text = t.owner.annotations.get(CHECKPOINT_ANNOTATION) if t.owner else None
    try:
        return parse_duration(text) if text else None
    except ValueError:
        return None
