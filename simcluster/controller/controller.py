"""The live Kueue controller: keeps an engine ``Simulation`` in step with the API objects.

One loop, level-based where it counts:

1. *ingest* — read the store's change stream (in-process, skipping our own
   echoes): quota objects mark the configuration dirty (the engine is then
   rebuilt from the current objects, keeping admitted workloads, their nodes
   and their start times); Jobs, Pods and StatefulSets with a queue label get
   a Workload; deletions release everything.
2. *step* — advance the engine instant by instant up to "now" (wall clock or
   virtual), publishing after every instant: Workload status, Events, pods
   bound to nodes, Jobs (un)suspended and completed.
3. *publish* — ClusterQueue/LocalQueue/Cohort status, written only when it
   changed, so an idle tick writes nothing.
"""

from __future__ import annotations

import copy
import logging
import threading
from typing import Any

from kueuemodel import Simulation, format_timestamp, pending_workloads
from simcluster.server.store import TooOldError

from . import ingest, integration, publish
from .clock import VIRTUAL, SimClock
from .devices import DeviceTable
from .recorder import Recorder
from .state import FINISHED, RUNNING, WAITING, Tracked, phase_of
from .writer import EVENTS, WORKLOADS, Writer

log = logging.getLogger(__name__)
Obj = dict[str, Any]
MAX_SETTLE_ROUNDS = 20
POD_STOP_MS = 1_000
"""An evicted workload's pods take this long to stop; Kueue frees its quota then."""


class Controller:
    """See the module docstring. All public methods take ``self.lock``."""

    def __init__(
        self,
        server: Any,
        clock: SimClock,
        *,
        prices: dict[str, float] | None = None,
        kueue_config: Obj | None = None,
    ) -> None:
        self.server = server
        # Kueue's own Configuration (e.g. its fairSharing block): a start-up setting
        # of the real controller, not an API object.
        self.kueue_config = kueue_config
        self.store = server.cluster.store
        self.clock = clock
        server.cluster.clock = clock.datetime
        self.writer = Writer(server.cluster, server.counters, "kueue-controller")
        self.prices = prices or {}
        self.lock = threading.RLock()
        self.devices = DeviceTable()
        self.recorder = Recorder()
        self.tracked: dict[str, Tracked] = {}
        self.by_owner: dict[tuple[str, str, str], str] = {}
        self.blocked: dict[tuple[str, str, str], Obj] = {}
        self.fingerprints: dict[tuple[str, str, str], str] = {}
        self.published: dict[tuple[str, str, str], Obj] = {}
        self.touched: set[str] = set()
        self.unplaced_seen: set[str] = set()
        self.config_dirty = False
        self.changed = True
        self.last_rv = 0
        self._event_seq = 0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        with self.lock:
            ingest.resync(self)

    # ----- public ------------------------------------------------------------

    def tick(self) -> None:
        """Catch up to the clock's now (a no-op when nothing changed)."""
        self.advance_to(self.clock.now_ms())

    def advance(self, seconds: float) -> int:
        """Virtual clock: move time forward by ``seconds``; returns the new now (ms)."""
        return self.advance_to(self.clock.now_ms() + round(seconds * 1000))

    def advance_to(self, target_ms: int, publish_queues: bool = True) -> int:
        """Step every engine instant up to ``target_ms``, publishing each; returns now (ms)."""
        with self.lock:
            # New objects join at the current instant, before time moves on.
            current = self.clock.now_ms() if self.clock.mode == VIRTUAL else 0
            self._settle(max(current, self.sim.cluster.now_ms))
            while (at := self.sim.next_event_at()) is not None and at <= target_ms:
                self._settle(max(at, self.sim.cluster.now_ms))
            if self.clock.mode == VIRTUAL:
                self.clock.set_virtual(target_ms)
            self._settle(max(target_ms, self.sim.cluster.now_ms))
            if publish_queues and self.changed:
                publish.flush_pending(self)
                publish.queues(self)
                self.changed = False
            return self.clock.now_ms()

    def pending(self, cluster_queue: str) -> list[Obj]:
        """Visibility provider: pending workloads of a ClusterQueue in queue order."""
        with self.lock:
            if cluster_queue not in self.sim.cluster.queues:
                return []
            return pending_workloads(self.sim.cluster, cluster_queue)["items"]

    def start(self, interval: float) -> Controller:
        """Tick on a daemon thread every ``interval`` seconds."""
        self._thread = threading.Thread(
            target=self._loop, args=(interval,), name="simcluster-controller", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _loop(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.tick()
            except Exception:  # the loop must survive a bug in one tick
                log.exception("controller tick failed")

    # ----- one instant -------------------------------------------------------

    def _settle(self, at_ms: int) -> None:
        """Run the engine at ``at_ms`` and publish, until nobody else has changed anything."""
        with self.clock.pinned(at_ms):
            for _ in range(MAX_SETTLE_ROUNDS):
                self._ingest()
                self.sim.run(at_ms)
                self._reconcile()
                if not self.touched and not self._foreign_changes():
                    break
            publish.gauges(self)

    def _foreign_changes(self) -> bool:
        """Whether the store holds changes that are not just our own echoes."""
        if self.store.resource_version == self.last_rv:
            return False
        events, _ = self.store.changes_after(self.last_rv)
        return any(e.rv not in self.writer.own for e in events)

    def _ingest(self) -> bool:
        if self.store.resource_version == self.last_rv:
            return False
        try:
            events, self.last_rv = self.store.changes_after(self.last_rv)
        except TooOldError:
            ingest.resync(self)
            return True
        foreign = [e for e in events if not self.writer.is_own(e.rv)]
        for event in foreign:
            ingest.on_event(self, event)
        if self.config_dirty:
            self.rebuild()
        return bool(foreign)

    def _reconcile(self) -> None:
        cluster = self.sim.cluster
        for at, kind, wl, cq in cluster.history:
            publish.on_transition(self, at, kind, wl, cq)
            self.touched.add(wl.key)
        cluster.history.clear()
        # Gangs that could not be placed get their pods bound once room frees up.
        self.touched.update(self.unplaced_seen, cluster.unplaced)
        self.unplaced_seen = set(cluster.unplaced)
        for event in cluster.events:
            self.emit(event)
        cluster.events.clear()
        touched, self.touched = self.touched, set()
        self.changed |= bool(touched)
        for key in sorted(touched):
            self.sync(key)
        for key in sorted(k for k, t in self.tracked.items() if t.phase and t.phase[0] == RUNNING):
            integration.checkpoint(self, self.tracked[key])

    def sync(self, key: str) -> None:
        """Publish one Workload's status and move its owner/pods to its phase."""
        t, wl = self.tracked.get(key), self.sim.cluster.workloads.get(key)
        if t is None or wl is None:
            return
        self.write_status(t, wl)
        cur = phase_of(wl)
        if t.phase != cur:
            integration.transition(self, t, wl, cur)
            t.phase = cur
        if cur[0] == FINISHED:
            # Done for good: the engine no longer needs it (its object stays in the store).
            self.sim.delete_workload(wl.namespace, wl.name)

    def write_status(self, t: Tracked, wl: Any) -> None:
        status = wl.obj.get("status") or {}
        if status != t.status:
            self.writer.put_status(WORKLOADS, t.namespace, t.name, status)
            t.status = copy.deepcopy(status)

    # ----- rebuild -----------------------------------------------------------

    def rebuild(self) -> None:
        """New engine from the current objects; running workloads keep nodes and start times."""
        for key in list(self.tracked):
            self.sync(key)
        workloads = ingest.stored_workloads(self)
        previous, self.sim = self.sim, self._new_simulation(ingest.config_objects(self) + workloads)
        self.sim.keep_queue_usage(previous)
        self.config_dirty = False
        self.changed = True
        self.published.clear()
        for key, t in self.tracked.items():
            wl = self.sim.cluster.workloads.get(key)
            if wl is not None and t.phase is not None:
                t.phase = (t.phase[0], wl.evictions, t.phase[2])
            self.touched.add(key)
        ingest.retry_blocked(self)

    def _new_simulation(self, objects: list[Obj]) -> Simulation:
        sim = Simulation(
            objects, start_ms=self.clock.now_ms(), record_events=True, pod_stop_ms=POD_STOP_MS
        )
        sim.cluster.history = []
        ingest.pin_placements(self, sim)
        return sim

    # ----- helpers used by ingest/integration -------------------------------

    def emit(self, event: Obj) -> None:
        """Store one core/v1 Event (engine events arrive without metadata)."""
        involved = event["involvedObject"]
        self._event_seq += 1
        name = f"{involved['name']}.{self.clock.now_ms():x}{self._event_seq:05x}"
        body = {
            **event,
            "metadata": {"name": name[-253:].lstrip(".-"), "namespace": involved["namespace"]},
            "source": {"component": "kueue-admission"},
            "reportingComponent": "kueue-admission",
            "reportingInstance": "kueue-controller-manager",
        }
        self.writer.create(EVENTS, body)

    def emit_event(self, involved: Obj, reason: str, message: str, kind: str = "Normal") -> None:
        at = format_timestamp(self.clock.now_ms())
        self.emit(
            {
                "apiVersion": "v1",
                "kind": "Event",
                "type": kind,
                "reason": reason,
                "message": message,
                "involvedObject": involved,
                "firstTimestamp": at,
                "lastTimestamp": at,
                "count": 1,
            }
        )

    def write_workload_meta(self, t: Tracked, patch: Obj) -> None:
        self.writer.merge(WORKLOADS, t.namespace, t.name, patch)

    def forget(self, t: Tracked) -> None:
        """Stop managing a Workload (its owner is gone or will not come back)."""
        self.sim.delete_workload(t.namespace, t.name)
        self.tracked.pop(t.key, None)
        if t.owner is not None:
            self.by_owner.pop(t.owner.key, None)
        self.changed = True

    def queue_of(self, t: Tracked) -> str:
        wl = self.sim.cluster.workloads.get(t.key)
        return wl.queue_name if wl else ""

    def waiting_keys(self) -> list[str]:
        return sorted(
            k for k, t in self.tracked.items() if t.phase is None or t.phase[0] == WAITING
        )
