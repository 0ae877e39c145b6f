"""The event loop: arrivals and completions on a virtual clock, with
scheduling cycles run to a fixed point at every instant something happens.

This is the engine's main entry point for callers (the scenario runner, the
HTTP server): build a ``Simulation`` from manifests, feed it objects, advance
virtual time, and read Workload dicts back.
"""

from __future__ import annotations

import heapq
from itertools import count
from typing import Any

from . import admission_order, lifecycle, parse, status
from . import model as m
from .clock import format_timestamp, parse_duration, parse_timestamp
from .latency import ADMIT, EVICT, NO_LATENCY, PENDING, ApiClient, Latency
from .queues import PendingQueue
from .quota import QuotaNode, walk
from .scheduler import CycleMemo, run_cycle
from .state import Cluster, build_quota_tree, load_specs

ARRIVAL_ANNOTATION = "simcluster/arrival"
MAX_CYCLES_PER_INSTANT = 1_000_000
_ARRIVE, _FINISH, _STOPPED, _REQUEUE, _CYCLE, _RETURN = 0, 1, 2, 3, 4, 5
_ORDERED = frozenset({_REQUEUE, _STOPPED})
"""A requeue batch and pods stopping that fall due in the same instant happen in the
order they were armed, each followed by its own cycles. The batch is armed by a
release and an eviction comes from a cycle after it, so on a cluster the batch
fires first; handled together, the parked head it brings back hides the preemptor
in the very cycle its victim's quota comes free, the victim borrows that quota
again and is preempted again, every second (test_preemption_requeue)."""
NEXT_INSTANT_MS = 1
"""The smallest step of virtual time: what a scheduling instant defers lands here."""
REQUEUE_BATCH_MS = 1_000
"""Kueue puts workloads parked as inadmissible back in the queue one batch period
after the quota release that may let them fit, not at once: the request goes
through a delaying work queue that merges the releases of that second
(``requeueBatchPeriod`` in Kueue's ``pkg/cache/queue/inadmissible_workloads.go``).
An arrival within that second is therefore admitted ahead of parked workloads."""


class Simulation:
    """A deterministic Kueue admission simulation over a fixed cluster config."""

    def __init__(
        self,
        objects: list[dict[str, Any]],
        *,
        start_ms: int | None = None,
        record_events: bool = True,
        write_status: bool = True,
        pod_stop_ms: int = NEXT_INSTANT_MS,
        requeue_batch_ms: int = REQUEUE_BATCH_MS,
        latency: Latency = NO_LATENCY,
        victim_return_ms: int = 0,
        equivalence_hashing: bool = True,
    ):
        """``pod_stop_ms``: how long an evicted workload's pods take to stop; its
        quota is released that much later (never within the instant of eviction).
        ``requeue_batch_ms``: how long after a quota release parked workloads are
        reconsidered (0: in the same instant).
        ``latency``: the controller's own delays (``latency.Latency``; none by default).
        ``victim_return_ms``: how long after its quota is released a preempted workload
        is back in its queue (0: at once). Kueue frees the quota when it sees the
        victim's QuotaReserved=False and queues it again only after a further write
        (Requeued=True), so the preemptor, already queued, meets the freed quota first.
        ``equivalence_hashing``: Kueue's SchedulingEquivalenceHashing gate (off in
        v0.17, on from v0.18): a head found inadmissible parks every queued workload
        of its shape, not only itself. Only the timing of a paced run depends on it
        (``queues``); the engine keeps it on for speed.
        ``write_status=False`` leaves Workload status alone (only the transition
        log, ``cluster.history``, tells what happened)."""
        writer = status.StatusWriter() if write_status else status.SilentStatusWriter()
        self.cluster = Cluster(record_events=record_events, status_writer=writer)
        self.pod_stop_ms = max(NEXT_INSTANT_MS, pod_stop_ms)
        workload_like = load_specs(self.cluster, objects)
        self.cluster.now_ms = start_ms if start_ms is not None else latest_timestamp(objects)
        build_quota_tree(self.cluster)
        self._init_nodes()
        self._events: list[tuple[int, int, int, Any]] = []
        self._seq = count()
        self._dirty: set[str] = set()
        self._settling = False
        self._refill: set[str] = set()
        self._requeue_batch_ms = max(0, requeue_batch_ms)
        self._victim_return_ms = max(0, victim_return_ms)
        self._requeue_pending: set[str] = set()
        self._domains = self._index_domains()
        self.latency = latency
        self._api = ApiClient(latency)
        self._busy_until = self._wake_at = None
        self._landed: dict[str, int] = {}
        self.admission_landed_ms: dict[str, int] = {}
        """Paced runs only: when each workload's latest admission write landed, i.e. when
        a watcher (Kueue's performance runner) first saw it Admitted."""
        self._stop_at: int | None = None
        if latency.paced:
            self.cluster.writes = []
        usage_of = admission_order.order_key(self.cluster)
        self.cluster.queues = {
            name: PendingQueue(
                cq,
                equivalence_hashing,
                usage_of if admission_order.uses_it(self.cluster, cq) else None,
            )
            for name, cq in self.cluster.cluster_queues.items()
        }
        for obj in workload_like:
            self._accept(obj)
        admission_order.start(self.cluster)
        self._drain_stopped()

    # ----- feeding objects -------------------------------------------------

    def add_workload(self, obj: dict[str, Any], at_ms: int | None = None) -> None:
        """Submit a Workload (or batch/v1 Job) now, or at virtual time ``at_ms``.

        Submitted from inside a scheduling instant (a transition callback, such
        as a replay resubmitting a preempted job), it arrives at the next
        instant, like a requeued victim, so the instant is sure to settle.
        """
        if self._settling and (at_ms is None or at_ms <= self.cluster.now_ms):
            at_ms = self.cluster.now_ms + NEXT_INSTANT_MS
        if at_ms is not None and at_ms > self.cluster.now_ms:
            self._push(at_ms, _ARRIVE, obj)
        else:
            self._accept(obj)

    def add_arrivals(self, trace: list[tuple[int, dict[str, Any]]]) -> None:
        """Schedule ``(epoch_ms, manifest)`` pairs to arrive over virtual time."""
        for at_ms, obj in trace:
            self.add_workload(obj, at_ms)

    def delete_workload(self, namespace: str, name: str) -> None:
        wl = self.cluster.workloads.pop(f"{namespace}/{name}", None)
        if wl is None:
            return
        if wl.admission is not None and not wl.finished:
            cq_name = wl.admission.cluster_queue
            lifecycle.release(self.cluster, wl)
            self._on_release(cq_name)
        for queue in self.cluster.queues.values():
            queue.remove(wl)
        self.cluster.held.pop(wl.key, None)

    def keep_queue_usage(self, previous: Simulation) -> None:
        """Carry the LocalQueues' AdmissionFairSharing usage over from the run this one
        replaces: Kueue keeps it while objects change; only a restart loses it."""
        admission_order.carry_over(self.cluster, previous.cluster.queue_usage)

    # ----- running ---------------------------------------------------------

    def run(self, until_ms: int | None = None) -> None:
        """Advance until nothing is left to happen, or until ``until_ms``."""
        self._settle()
        while self._events:
            at = self._events[0][0]
            if until_ms is not None and at > until_ms:
                break
            self.cluster.now_ms = at
            unsettled = None
            while self._events and self._events[0][0] == at:
                _, _, kind, payload = heapq.heappop(self._events)
                if kind in _ORDERED and unsettled not in (None, kind):
                    self._settle()
                self._handle(kind, payload)
                unsettled = kind if kind in _ORDERED else unsettled
            self._settle()
        if until_ms is not None and until_ms > self.cluster.now_ms:
            self.cluster.now_ms = until_ms

    def next_event_at(self) -> int | None:
        """Virtual time of the next queued arrival or completion (None when idle).

        Lets a live controller step instant by instant and publish each one.
        """
        return self._events[0][0] if self._events else None

    def workloads(self) -> list[dict[str, Any]]:
        """Workload manifests with current status, sorted like ``kubectl get -A``."""
        return [wl.obj for _, wl in sorted(self.cluster.workloads.items())]

    # ----- internals -------------------------------------------------------

    def _init_nodes(self) -> None:
        self.cluster.free = {
            name: dict(node.allocatable) for name, node in self.cluster.nodes.items()
        }

    def _index_domains(self) -> dict[str, list[QuotaNode]]:
        """Root name -> ClusterQueue leaves; also remembers each CQ's root."""
        domains: dict[str, list[QuotaNode]] = {}
        self._root_of: dict[str, str] = {}
        for name in sorted(self.cluster.cq_nodes):
            root = self.cluster.cq_nodes[name].root()
            self._root_of[name] = root.name
            if root.name not in domains:
                domains[root.name] = [n for n in walk(root) if n.is_cluster_queue]
        return domains

    def _push(self, at_ms: int, kind: int, payload: Any) -> None:
        heapq.heappush(self._events, (at_ms, next(self._seq), kind, payload))

    def _accept(self, obj: dict[str, Any]) -> None:
        cluster = self.cluster
        if obj.get("kind") == "Job":
            obj = parse.job_to_workload(obj, cluster.priority_classes)
        if obj.get("kind") != "Workload":
            return
        if not (obj.get("metadata") or {}).get("creationTimestamp"):
            obj.setdefault("metadata", {})["creationTimestamp"] = format_timestamp(cluster.now_ms)
        wl = parse.parse_workload(obj, cluster.priority_classes, cluster.now_ms)
        wl.enqueued_ms = max(wl.created_ms, 0)
        if wl.key in cluster.workloads:
            # A new object under an old name: the old one is gone, with what it held.
            self.delete_workload(wl.namespace, wl.name)
        cluster.workloads[wl.key] = wl
        if wl.finished:
            return
        if wl.admission is not None and wl.admission.cluster_queue in cluster.cq_nodes:
            reserved = status.get_condition(obj, status.QUOTA_RESERVED)
            wl.reserved_ms = (
                parse_timestamp(reserved["lastTransitionTime"]) if reserved else cluster.now_ms
            )
            lifecycle.restore(cluster, wl)
            return
        wl.admission = None
        cq_name = lifecycle.enqueue(cluster, wl)
        if cq_name:
            self._dirty.add(self._root_of[cq_name])

    def _drain_stopped(self) -> None:
        """HoldAndDrain on a ClusterQueue or LocalQueue evicts what it admitted."""
        cluster = self.cluster
        for wl in list(w for q in cluster.reserving.values() for w in q.values()):
            lq = cluster.local_queue_of(wl)
            cq = cluster.cluster_queues.get(wl.admission.cluster_queue)
            if wl.stopping:
                continue  # already on its way out
            if cq and cq.stop_policy == m.HOLD_AND_DRAIN:
                lifecycle.evict(cluster, wl, "ClusterQueueStopped", "The ClusterQueue is stopped")
            elif lq and lq.stop_policy == m.HOLD_AND_DRAIN:
                lifecycle.evict(cluster, wl, "LocalQueueStopped", "The LocalQueue is stopped")

    def _handle(self, kind: int, payload: Any) -> None:
        if kind == _ARRIVE:
            self._accept(payload)
            return
        if kind == _STOPPED:
            self._release_stopped(payload)
            return
        if kind == _RETURN:
            self._return_victim(*payload)
            return
        if kind == _CYCLE:
            if payload == self._wake_at:
                self._wake_at = None
            return
        if kind == _REQUEUE:
            self._requeue_pending.discard(payload)
            self._refill.add(payload)
            self._dirty.add(payload)
            return
        wl, evictions = payload
        if wl.admission is None or wl.finished or wl.evictions != evictions:
            return  # stale: the workload was evicted after this completion was scheduled
        self._on_release(lifecycle.finish(self.cluster, wl))

    def _on_release(self, cq_name: str) -> None:
        for root in {self._root_of[cq_name], *self._topology_neighbours(cq_name)}:
            self._on_release_in(root)

    def _topology_neighbours(self, cq_name: str) -> set[str]:
        """Roots of other ClusterQueues on a topology flavor ``cq_name`` uses: the nodes it
        freed are theirs too, and Kueue v0.17 was seen to admit their waiting topology
        workloads right then (bench.differential --tas, docs/differential.md)."""
        shared = self._topology_flavors(cq_name)
        if not shared:
            return set()
        return {
            self._root_of[name]
            for name in self.cluster.cluster_queues
            if name in self._root_of and self._topology_flavors(name) & shared
        }

    def _topology_flavors(self, cq_name: str) -> set[str]:
        cq, flavors = self.cluster.cluster_queues.get(cq_name), self.cluster.flavors
        groups = cq.resource_groups if cq else ()
        return {
            fq.name
            for group in groups
            for fq in group.flavors
            if fq.name in flavors and flavors[fq.name].topology_name
        }

    def _on_release_in(self, root: str) -> None:
        self._dirty.add(root)  # active heads may use the freed quota at once
        if not self._requeue_batch_ms:
            self._refill.add(root)
        elif root not in self._requeue_pending:
            self._requeue_pending.add(root)
            self._push(self.cluster.now_ms + self._requeue_batch_ms, _REQUEUE, root)

    def _settle(self) -> None:
        """Run cycles in every touched cohort tree until nothing more changes."""
        self._retry_placement()
        self._settling = True
        try:
            if self.latency.paced:
                self._settle_paced()
            while self._dirty and not self.latency.paced:
                root = min(self._dirty)
                self._dirty.discard(root)
                self._schedule_domain(root)
        finally:
            self._settling = False
        self._start_timers()
        if self.cluster.stopping:
            stop_base = self._stop_at if self._stop_at is not None else self.cluster.now_ms
            self._push(stop_base + self.pod_stop_ms, _STOPPED, self.cluster.stopping)
            self.cluster.stopping, self._stop_at = [], None

    # ----- paced scheduling (latency.Latency) -------------------------------

    def _settle_paced(self) -> None:
        """Run one cycle if the scheduler is free, else wake it when it is."""
        now = self.cluster.now_ms
        if not self._dirty:
            return
        if self._busy_until is None or now >= self._busy_until:
            self._paced_cycle()
        if self._dirty:
            self._wake(self._busy_until)

    def _paced_cycle(self) -> None:
        """One Kueue cycle: a head per ClusterQueue in every tree that may change.

        Trees share no quota, so scheduling them one after another within the
        cycle is Kueue's single cycle over all heads.
        """
        now = self.cluster.now_ms
        for root in sorted(self._dirty):
            if not self._schedule_domain(root, cycles=1):
                self._dirty.discard(root)
        end = now + self.latency.cycle_ms
        writes, self.cluster.writes = self.cluster.writes, []
        # Kueue admits and evicts while it walks the heads, and patches the statuses
        # of the heads it sent back after the walk.
        writes.sort(key=lambda write: write[0] == PENDING)
        for kind, wl in writes:
            landed = self._api.reserve(now)
            if kind == ADMIT:
                self._landed[wl.key] = landed  # its job starts once it sees the admission
                self.admission_landed_ms[wl.key] = landed
                continue
            end = max(end, landed)  # evictions and status updates block the cycle
            if kind == EVICT:
                self._stop_at = max(self._stop_at or now, landed)
        self._busy_until = max(end, now + NEXT_INSTANT_MS)

    def _wake(self, at_ms: int) -> None:
        if self._wake_at != at_ms:
            self._wake_at = at_ms
            self._push(at_ms, _CYCLE, at_ms)

    def _release_stopped(self, evicted: list[tuple[m.Workload, int]]) -> None:
        cluster = self.cluster
        for wl, evictions in evicted:
            if cluster.workloads.get(wl.key) is not wl or wl.evictions != evictions:
                continue  # deleted (and released) meanwhile
            if not wl.stopping:
                continue
            later = self._victim_return_ms > 0
            self._on_release(lifecycle.release_evicted(cluster, wl, requeue=not later))
            if later:
                self._push(cluster.now_ms + self._victim_return_ms, _RETURN, (wl, wl.evictions))

    def _return_victim(self, wl: m.Workload, evictions: int) -> None:
        cluster = self.cluster
        if cluster.workloads.get(wl.key) is not wl or wl.evictions != evictions:
            return  # deleted meanwhile
        if wl.admission is None and not wl.finished:
            cq_name = lifecycle.return_evicted(cluster, wl)
            if cq_name:
                self._dirty.add(self._root_of[cq_name])

    def _schedule_domain(self, root: str, cycles: int = MAX_CYCLES_PER_INSTANT) -> bool:
        """Run up to ``cycles`` cycles; return whether the last one changed anything."""
        leaves, memo = self._domains[root], CycleMemo()
        if root in self._refill:
            self._refill.discard(root)
            for node in leaves:
                self.cluster.queues[node.name].requeue_parked()
        for _ in range(cycles):
            if not run_cycle(self.cluster, leaves, memo):
                return False
        if cycles == 1:
            return True
        raise RuntimeError(f"scheduling in cohort tree {root} did not settle")

    def _retry_placement(self) -> None:
        for wl in list(self.cluster.unplaced.values()):
            lifecycle.try_place(self.cluster, wl)

    def _start_timers(self) -> None:
        for wl, started_ms in self.cluster.started:
            started_ms = max(started_ms, self._landed.pop(wl.key, started_ms))
            if wl.duration_ms is not None and wl.admission is not None and not wl.stopping:
                run_ms = wl.duration_ms + self.latency.finish_ms
                done = max(self.cluster.now_ms, started_ms + run_ms)
                self._push(done, _FINISH, (wl, wl.evictions))
        self.cluster.started.clear()


def latest_timestamp(objects: list[dict[str, Any]]) -> int:
    """The scenario's "now": the newest timestamp found anywhere in it."""
    latest = 0
    for obj in objects:
        created = (obj.get("metadata") or {}).get("creationTimestamp")
        if created:
            latest = max(latest, parse_timestamp(created))
        for condition in (obj.get("status") or {}).get("conditions") or ():
            if condition.get("lastTransitionTime"):
                latest = max(latest, parse_timestamp(condition["lastTransitionTime"]))
    return latest


def arrival_offset(obj: dict[str, Any]) -> int | None:
    """``simcluster/arrival: 30s`` delays a workload's submission in a scenario."""
    value = ((obj.get("metadata") or {}).get("annotations") or {}).get(ARRIVAL_ANNOTATION)
    return parse_duration(value) if value else None
