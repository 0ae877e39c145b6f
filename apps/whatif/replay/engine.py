"""Run a trace through the admission engine under one policy and record what happened.

The engine is quota-only here (no Nodes): admission decides start times, and a
run starts the instant its quota is reserved. Checkpointed jobs lose only the
work since their last checkpoint when preempted, as in the live controller.

A preempted workload keeps its quota while its pods stop (``POD_STOP_MS``) and
then goes back to its queue, as in Kueue; the engine does both. Parked workloads
come back one requeue batch (1 s) after a release. Only arrivals and run times sit
on the grid: the controller's own one-second delays stay exact on any grid,
because rounding them up to 30 s held a victim's quota, or a parked queue, for
30 s where Kueue takes one, and under fair sharing that moved every later
decision of the week (docs/benchmarks.md, "A generated busy week"). For the same
reason a workload arrives after its instant's own events have been scheduled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apps.whatif.replay.borrowing import BorrowMeter
from apps.whatif.replay.gcpause import cyclic_gc_paused
from apps.whatif.replay.manifests import arrivals, on_grid
from apps.whatif.replay.trace import TraceWorkload, Window, is_gpu
from kueuemodel import NEXT_INSTANT_MS, REQUEUE_BATCH_MS, Simulation

POD_STOP_MS = 1000
# Arrivals and run times are rounded up to this grid (see ``manifests.on_grid``): a
# week then has at most ~10k distinct instants, whatever the number of workloads.
DEFAULT_GRID_MS = 30_000


@dataclass
class WorkloadOutcome:
    """What one workload went through in a replay.

    ``first_admit_ms`` is its creation time plus the wait the replay gave it,
    counted from its arrival on the grid: rounding an arrival up delays the
    workload in the replay, but is not waiting for quota, so it is left out
    (otherwise every workload admitted at once would "wait" up to a grid step).
    """

    first_admit_ms: int | None = None
    preemptions: int = 0
    lost_gpu_ms: int = 0


FlavorUse = dict[str, dict[str, list[float]]]
"""team → flavor → [GPU-ms run in the window, GPU-ms lost to preemption, GPU-ms borrowed in
the window]; lost work counts as ``WorkloadOutcome.lost_gpu_ms`` does, for every preemption."""
USED, LOST, BORROWED = 0, 1, 2


@dataclass
class ReplayResult:
    """Per-workload outcomes and GPU time used inside the window, per team (and flavor)."""

    window: Window
    outcomes: dict[str, WorkloadOutcome] = field(default_factory=dict)
    gpu_ms_by_team: dict[str, float] = field(default_factory=dict)
    by_flavor: FlavorUse = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Compact and JSON-safe: ``{key: [first admit ms, preemptions, lost GPU-ms]}``."""
        outcomes = {
            key: [o.first_admit_ms, o.preemptions, o.lost_gpu_ms]
            for key, o in self.outcomes.items()
        }
        return {
            "outcomes": outcomes,
            "gpu_ms_by_team": dict(self.gpu_ms_by_team),
            "by_flavor": self.by_flavor,
        }

    @classmethod
    def from_dict(cls, window: Window, data: dict[str, Any]) -> ReplayResult:
        outcomes = {key: WorkloadOutcome(*values) for key, values in data["outcomes"].items()}
        # Replays stored before flavors were counted have none: their runs show no money.
        return cls(window, outcomes, dict(data["gpu_ms_by_team"]), data.get("by_flavor", {}))

    @classmethod
    def merged(cls, window: Window, parts: list[ReplayResult]) -> ReplayResult:
        """One result from replays of disjoint sets of workloads (see ``partition``)."""
        result = cls(window)
        for part in parts:
            result.outcomes.update(part.outcomes)
            for team, used in part.gpu_ms_by_team.items():
                result.gpu_ms_by_team[team] = result.gpu_ms_by_team.get(team, 0.0) + used
            for team, flavors in part.by_flavor.items():
                for flavor, figures in flavors.items():
                    for index, value in enumerate(figures):
                        result.add_flavor_use(team, flavor, index, value)
        return result

    def add_flavor_use(self, team: str, flavor: str, index: int, gpu_ms: float) -> None:
        figures = self.by_flavor.setdefault(team, {}).setdefault(flavor, [0.0, 0.0, 0.0])
        figures[index] += gpu_ms


class _Ledger(list):
    """Stands in for the engine's transition log and folds each entry in as it is written.

    It reacts as the engine writes: an evicted checkpointed job sheds its saved
    work before it can be admitted again. Nothing is kept in the list itself, so
    a week of transitions costs no memory.
    """

    def __init__(
        self, trace: list[TraceWorkload], result: ReplayResult, grid_ms: int, meter: BorrowMeter
    ):
        super().__init__()
        self.meter = meter
        self.run_gpus: dict[str, tuple[str, dict[str, float]]] = {}  # key → (queue, flavor → GPUs)
        self.grid_ms = grid_ms
        self.by_key = {wl.key: wl for wl in trace}
        self.gpus = {wl.key: wl.gpus for wl in trace}  # a property: summed once, not per run
        self.grid_delay = {wl.key: on_grid(wl.created_ms, grid_ms) - wl.created_ms for wl in trace}
        self.result = result
        self.run_start: dict[str, int] = {}

    def append(self, item: tuple[int, str, Any, str]) -> None:
        at, kind, engine_wl, cq = item
        record = self.by_key.get(engine_wl.key)
        if record is None:
            return
        if kind == "admit":
            self._admit(engine_wl.key, at)
            self._start_gpus(engine_wl, cq, at)
        elif kind in ("evict", "finish"):
            self._end_run(record, at, engine_wl, preempted=kind == "evict")

    def _admit(self, key: str, at: int) -> None:
        outcome = self.result.outcomes.get(key)
        if outcome is None:
            first_admit = at - self.grid_delay[key]
            outcome = self.result.outcomes[key] = WorkloadOutcome(first_admit_ms=first_admit)
        self.run_start[key] = at

    def _end_run(self, record: TraceWorkload, at: int, engine_wl: Any, *, preempted: bool) -> None:
        key = engine_wl.key
        start = self.run_start.pop(key, None)
        if start is None:
            return
        self._use(key, record.team, start, at)
        queue, flavors = self.run_gpus.pop(key, ("", {}))
        for flavor, gpus in flavors.items():
            self.meter.change(at, queue, flavor, -gpus)
            self._use_flavor(record.team, flavor, gpus, start, at)
        if preempted:
            ran = at - start
            saved = (
                ran // record.checkpoint_ms * record.checkpoint_ms if record.checkpoint_ms else 0
            )
            if engine_wl.duration_ms is not None:
                # Resumed from its checkpoint: only the unsaved part runs again.
                remaining = max(0, engine_wl.duration_ms - saved)
                engine_wl.duration_ms = on_grid(remaining, self.grid_ms)
            outcome = self.result.outcomes[key]
            outcome.preemptions += 1
            outcome.lost_gpu_ms += (ran - saved) * self.gpus[key]
            for flavor, gpus in flavors.items():
                self.result.add_flavor_use(record.team, flavor, LOST, (ran - saved) * gpus)

    def _start_gpus(self, engine_wl: Any, queue: str, at: int) -> None:
        """The GPUs of each flavor the admission gave the run, as the borrow meter sees them."""
        flavors: dict[str, float] = {}
        for (flavor, resource), milli in engine_wl.admission.usage().items():
            if is_gpu(resource):
                flavors[flavor] = flavors.get(flavor, 0.0) + milli / 1000
        self.run_gpus[engine_wl.key] = (queue, flavors)
        for flavor, gpus in flavors.items():
            self.meter.change(at, queue, flavor, gpus)

    def _use_flavor(self, team: str, flavor: str, gpus: float, start: int, end: int) -> None:
        window = self.result.window
        inside = min(end, window.end_ms) - max(start, window.start_ms)
        if inside > 0:
            self.result.add_flavor_use(team, flavor, USED, inside * gpus)

    def _use(self, key: str, team: str, start: int, end: int) -> None:
        window = self.result.window
        inside = min(end, window.end_ms) - max(start, window.start_ms)
        if inside > 0:
            used = self.result.gpu_ms_by_team
            used[team] = used.get(team, 0.0) + inside * self.gpus[key]

    def close(self, at: int) -> None:
        """Runs still going when the replay stops count up to ``at``."""
        for key, start in self.run_start.items():
            team = self.by_key[key].team
            self._use(key, team, start, at)
            for flavor, gpus in self.run_gpus.get(key, ("", {}))[1].items():
                self._use_flavor(team, flavor, gpus, start, at)
        self.meter.close(at)
        for team, flavors in self.meter.borrowed_ms.items():
            for flavor, gpu_ms in flavors.items():
                self.result.add_flavor_use(team, flavor, BORROWED, gpu_ms)


def replay(
    objects: list[dict],
    trace: list[TraceWorkload],
    window: Window,
    *,
    grid_ms: int = DEFAULT_GRID_MS,
) -> ReplayResult:
    """Admit ``trace`` under the policy ``objects`` (Kueue manifests) until the window ends."""
    result = ReplayResult(window=window)
    if not trace:
        return result
    start = min(window.start_ms, min(wl.created_ms for wl in trace))
    sim = Simulation(
        objects,
        start_ms=start,
        record_events=False,
        write_status=False,
        pod_stop_ms=POD_STOP_MS,
        # Kueue requeues parked workloads one batch after a release, so a preemptor
        # meets its victim without them and, not borrowing, wins the freed quota;
        # back at the release itself, a parked higher-priority head can hide the
        # preemptor for a cycle and let the victim borrow again (test_reclaim_requeue).
        requeue_batch_ms=REQUEUE_BATCH_MS,
        # Victims return after the heads that waited for them (Kueue's extra write);
        # measured against the real Kueue with fair sharing off only, so only there.
        victim_return_ms=0 if _fair_sharing(objects) else NEXT_INSTANT_MS,
    )
    ledger = _Ledger(trace, result, grid_ms, BorrowMeter(objects, window))
    sim.cluster.history = ledger
    with cyclic_gc_paused():
        _arrive_after_each_instant(sim, arrivals(trace, grid_ms), window.end_ms)
        sim.run(until_ms=window.end_ms)
    ledger.close(window.end_ms)
    return result


def _arrive_after_each_instant(sim: Simulation, timed: list[tuple[int, dict]], end_ms: int) -> None:
    """Submit each arrival once its instant's own events have settled, then settle it alone.

    The live controller works so: it steps the engine to a job's arrival time (the
    completions and releases of that instant admit first), then creates the job's
    Workload and schedules again, one job at a time. Arriving inside the instant
    instead let a new notebook compete with a victim returning at that very instant.
    """
    for at_ms, obj in timed:
        if at_ms > end_ms:
            break
        sim.run(until_ms=at_ms)
        sim.add_workload(obj)
        sim.run(until_ms=at_ms)


def _fair_sharing(objects: list[dict]) -> bool:
    return any(o.get("kind") == "Configuration" and o.get("fairSharing") for o in objects)
