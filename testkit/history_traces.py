"""A recorded history built by running a synthetic trace through the admission engine."""

from __future__ import annotations

import copy
import time

from django.utils import timezone

from apps.reports.services.workload_records import record_workload_events
from apps.whatif.replay.manifests import arrivals
from apps.whatif.replay.synthetic import Load, synthetic_trace
from kueuemodel import Simulation


class _Recorder(list):
    """Engine transition log that snapshots each Workload as a watch would see it."""

    def append(self, item) -> None:
        super().append(("MODIFIED", copy.deepcopy(item[2].obj)))


def record_history(objects: list[dict], trace) -> int:
    """Run ``trace`` through the engine under ``objects`` and record it like the watcher does."""
    simulation = Simulation(objects, start_ms=min(w.created_ms for w in trace), record_events=False)
    recorder = _Recorder()
    simulation.cluster.history = recorder
    simulation.add_arrivals(arrivals(trace))
    simulation.run(until_ms=round(time.time() * 1000))
    created = [("ADDED", copy.deepcopy(w)) for _, w in arrivals(trace)]
    # The engine logs a finish before it writes Finished=True: the last look shows it.
    final = [("MODIFIED", copy.deepcopy(w)) for w in simulation.workloads()]
    return record_workload_events(created + list(recorder) + final)


def history_trace(days: int = 2, seed: int = 5, per_day: float = 30):
    start = int(timezone.now().timestamp() - days * 86400) * 1000
    loads = [
        Load(t, t, f"team-{t}", per_day=per_day, gpus=(1, 2, 4), minutes=(30, 150))
        for t in ("vision", "nlp")
    ]
    return synthetic_trace(loads, start_ms=start, days=days, seed=seed)
