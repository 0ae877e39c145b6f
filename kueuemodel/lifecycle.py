"""Workload verbs: enqueue, admit, evict, finish. Each keeps queues, quota,
node placement and Workload status consistent in one place."""

from __future__ import annotations

from . import admission_order, placement, status
from . import model as m
from .clock import format_duration
from .latency import ADMIT, EVICT
from .quota import add_usage, remove_usage
from .state import Cluster

INADMISSIBLE = "Inadmissible"
MISCONFIGURED = "Misconfigured"


def hold_reason(cluster: Cluster, wl: m.Workload) -> tuple[str, str] | None:
    """Why ``wl`` cannot even wait in a ClusterQueue (no quota release helps)."""
    lq = cluster.local_queue_of(wl)
    if lq is None:
        return INADMISSIBLE, f"LocalQueue {wl.queue_name} doesn't exist"
    if lq.stop_policy != m.STOP_NONE:
        return INADMISSIBLE, f"LocalQueue {lq.name} is stopped"
    cq = cluster.cluster_queues.get(lq.cluster_queue)
    if cq is None:
        return INADMISSIBLE, f"ClusterQueue {lq.cluster_queue} doesn't exist"
    if cq.stop_policy != m.STOP_NONE:
        return INADMISSIBLE, f"ClusterQueue {cq.name} is inactive: it is stopped"
    if cq.name in cluster.inactive:
        return INADMISSIBLE, cluster.inactive[cq.name]
    if cq.selector is None or not cq.selector.matches(cluster.namespace_labels(wl.namespace)):
        return MISCONFIGURED, "Workload namespace doesn't match ClusterQueue selector"
    if not wl.active:
        return INADMISSIBLE, "The workload is deactivated"
    return None


def enqueue(cluster: Cluster, wl: m.Workload) -> str | None:
    """Put a pending workload in its ClusterQueue; return that queue's name."""
    held = hold_reason(cluster, wl)
    if held:
        cluster.held[wl.key] = wl
        cluster.status_writer.pending(wl, held[0], held[1], cluster.now_ms)
        return None
    cq_name = cluster.cluster_queue_of(wl)
    cluster.held.pop(wl.key, None)
    parked = cluster.queues[cq_name].push(wl)
    if parked:
        cluster.status_writer.pending(wl, parked[0], parked[1], cluster.now_ms)
    return cq_name


def admit(cluster: Cluster, wl: m.Workload, admission: m.Admission) -> None:
    """Reserve quota (and admit: the simulator has no admission checks)."""
    cq_name = admission.cluster_queue
    cluster.queues[cq_name].remove(wl)
    add_usage(cluster.cq_nodes[cq_name], admission.usage())
    wl.admission = admission
    wl.reserved_ms = cluster.now_ms
    _hold(cluster, wl, cq_name)
    admission_order.charge(cluster, wl, cq_name)
    cluster.status_writer.admitted(wl, admission, cluster.now_ms)
    _log(cluster, "admit", wl, cq_name)
    _write(cluster, ADMIT, wl)
    if cluster.record_events:
        waited = format_duration(max(0, cluster.now_ms - wl.enqueued_ms))
        message = f"Quota reserved in ClusterQueue {cq_name}, wait time since queued was {waited}"
        cluster.events.append(status.event(wl, "QuotaReserved", message, cluster.now_ms))
        admitted = f"Admitted by ClusterQueue {cq_name}, wait time since reservation was 0s"
        cluster.events.append(status.event(wl, "Admitted", admitted, cluster.now_ms))
    try_place(cluster, wl)


def restore(cluster: Cluster, wl: m.Workload) -> None:
    """Account for a workload that arrived already holding quota.

    An evicted one whose pods were still stopping keeps its quota for another
    pod-stop period; its pods are not bound again (they are on their way out).
    """
    cq_name = wl.admission.cluster_queue
    add_usage(cluster.cq_nodes[cq_name], wl.admission.usage())
    wl.reserved_ms = wl.reserved_ms if wl.reserved_ms is not None else cluster.now_ms
    _hold(cluster, wl, cq_name)
    if wl.stopping:
        cluster.stopping.append((wl, wl.evictions))
        return
    try_place(cluster, wl, wl.reserved_ms)


def _hold(cluster: Cluster, wl: m.Workload, cq_name: str) -> None:
    admission_order.hold(cluster, wl, cq_name, +1)
    cluster.reserving.setdefault(cq_name, {})[wl.key] = wl
    levels = cluster.by_priority.setdefault(cq_name, {})
    levels.setdefault(wl.priority, {})[wl.key] = wl
    _count(cluster, wl, cq_name, +1)


def _count(cluster: Cluster, wl: m.Workload, cq_name: str, delta: int) -> None:
    """Keep ``Cluster.census`` in step with the workloads holding quota."""
    root = cluster.cq_nodes[cq_name].root().name
    users = cluster.census.setdefault(root, {}).setdefault(wl.priority, {})
    for cell in wl.admission.total:
        left = users.get(cell, 0) + delta
        if left:
            users[cell] = left
        else:
            del users[cell]


def try_place(cluster: Cluster, wl: m.Workload, start_ms: int | None = None) -> bool:
    """Bind pods when the scenario has nodes; True once the pods are running.

    ``start_ms`` backdates the run for workloads restored from a snapshot.
    """
    start = cluster.now_ms if start_ms is None else start_ms
    if not cluster.nodes:
        wl.started_ms = start
        cluster.started.append((wl, start))
        return True
    bindings, problem = placement.place(wl, cluster.nodes, cluster.free, cluster.flavors)
    wl.placement_problem = problem
    cluster.status_writer.placement(wl, problem, cluster.now_ms)
    if problem:
        cluster.unplaced[wl.key] = wl
        return False
    cluster.unplaced.pop(wl.key, None)
    cluster.placements[wl.key] = bindings
    if cluster.status_writer.writes:
        made = placement.topology_assignments(wl, bindings, cluster.flavors, cluster.nodes)
        cluster.status_writer.topology(wl, made)
    wl.started_ms = start
    cluster.started.append((wl, start))
    return True


def release(cluster: Cluster, wl: m.Workload) -> None:
    """Give back quota and node capacity held by ``wl``."""
    cq_name = wl.admission.cluster_queue
    remove_usage(cluster.cq_nodes[cq_name], wl.admission.usage())
    if cluster.reserving.get(cq_name, {}).pop(wl.key, None) is not None:
        _count(cluster, wl, cq_name, -1)
        admission_order.hold(cluster, wl, cq_name, -1)
    cluster.by_priority.get(cq_name, {}).get(wl.priority, {}).pop(wl.key, None)
    cluster.unplaced.pop(wl.key, None)
    wl.started_ms = None
    placement.release(cluster.placements.pop(wl.key, []), cluster.free)


def evict(
    cluster: Cluster,
    wl: m.Workload,
    reason: str,
    message: str,
    preempted_reason: str | None = None,
) -> str:
    """Write Evicted/Preempted and start stopping the pods; return the ClusterQueue.

    The quota is not released here: Kueue frees an evicted workload's quota only
    once its job integration has stopped the pods, and until then the workload
    still counts and is the first candidate of any further preemption (which
    does not evict it twice). ``Cluster.stopping`` asks the caller to call
    ``release_evicted`` when the pods are gone. Releasing in the same instant
    instead lets the freed quota be taken and reclaimed over and over inside
    one virtual instant, which a real cluster spreads over pod shutdowns.
    """
    cq_name = wl.admission.cluster_queue
    _log(cluster, "evict", wl, cq_name)
    cluster.status_writer.evicted(wl, reason, message, cluster.now_ms, preempted_reason)
    wl.stopping = True
    wl.started_ms = None
    wl.evictions += 1
    cluster.unplaced.pop(wl.key, None)  # an unplaced gang has no pods to stop
    _write(cluster, EVICT, wl)
    if cluster.record_events:
        cluster.events.append(status.event(wl, f"EvictedDueTo{reason}", message, cluster.now_ms))
        if preempted_reason:
            cluster.events.append(status.event(wl, "Preempted", message, cluster.now_ms))
    cluster.stopping.append((wl, wl.evictions))
    return cq_name


def release_evicted(cluster: Cluster, wl: m.Workload, *, requeue: bool = True) -> str:
    """The evicted workload's pods are gone: free its quota and nodes, requeue it
    (``requeue=False``: the caller puts it back later with ``return_evicted``)."""
    cq_name = wl.admission.cluster_queue
    release(cluster, wl)
    _log(cluster, "release", wl, cq_name)
    cluster.status_writer.released(wl, cluster.now_ms)
    wl.stopping = False
    wl.admission, wl.reserved_ms = None, None
    if requeue:
        return_evicted(cluster, wl)
    return cq_name


def return_evicted(cluster: Cluster, wl: m.Workload) -> str | None:
    """Put a released victim back in its queue; return that queue's name."""
    wl.enqueued_ms = cluster.now_ms
    return enqueue(cluster, wl)


def finish(cluster: Cluster, wl: m.Workload) -> str:
    """Mark Finished=True Succeeded and free its quota and nodes."""
    cq_name = wl.admission.cluster_queue
    release(cluster, wl)
    wl.finished = True
    _log(cluster, "finish", wl, cq_name)
    cluster.status_writer.finished(wl, cluster.now_ms)
    return cq_name


def _write(cluster: Cluster, kind: str, wl: m.Workload) -> None:
    if cluster.writes is not None:
        cluster.writes.append((kind, wl))


def _log(cluster: Cluster, kind: str, wl: m.Workload, cq_name: str) -> None:
    if cluster.history is not None:
        cluster.history.append((cluster.now_ms, kind, wl, cq_name))
