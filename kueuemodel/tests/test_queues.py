"""Pending queues (``kueuemodel.queues``): what they keep, and that equivalence
hashing changes no outcome of an unpaced run."""

from __future__ import annotations

from pathlib import Path

import pytest

from kueuemodel import Simulation
from kueuemodel.scenario import build_simulation

from .manifests import queue_objects, resource_flavor, workload_object

SCENARIOS = Path(__file__).parent / "scenarios"


@pytest.mark.parametrize(
    ("within", "hashing"),
    [("LowerOrNewerEqualPriority", True), ("LowerPriority", False), ("LowerPriority", True)],
)
def test_a_queue_keeps_no_bucket_for_workloads_that_left_it(within, hashing):
    # 40 one-cpu jobs through a one-cpu queue, one after another; "big" can never
    # fit and is deleted while parked. Where every workload has a bucket of its own
    # (LowerOrNewerEqualPriority, or hashing off), none may outlive its workload;
    # with shared shapes at most the two shapes' buckets remain.
    objects = [resource_flavor(), *queue_objects("q", cpu=1, within=within)]
    sim = Simulation(objects, start_ms=0, record_events=False, equivalence_hashing=hashing)
    jobs = [workload_object(f"j{i}", "q", seconds=60) for i in range(40)]
    sim.add_arrivals([(0, wl) for wl in [workload_object("big", "q", cpu=2), *jobs]])
    sim.run(30_000)
    queue = sim.cluster.queues["q"]
    assert queue.is_parked(sim.cluster.workloads["q/big"])
    sim.delete_workload("q", "big")
    sim.run()
    assert all(wl.finished for wl in sim.cluster.workloads.values())
    assert len(queue) == 0
    own_buckets = within == "LowerOrNewerEqualPriority" or not hashing
    assert len(queue._buckets) <= (0 if own_buckets else 2)


def _outcome(text: str, hashing: bool) -> tuple[list, list[dict]]:
    """Every transition after the start, and the Workloads (status included) at the end."""
    sim = build_simulation(text, record_events=False, equivalence_hashing=hashing)
    sim.cluster.history = []
    sim.run()
    history = [(at, kind, wl.key, cq) for at, kind, wl, cq in sim.cluster.history]
    return history, sim.workloads()


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.stem)
def test_equivalence_hashing_changes_no_unpaced_outcome(path):
    # Without pacing every instant is scheduled to a fixed point, so parking a whole
    # shape at once (Kueue v0.18) or one head per cycle (v0.17) reaches the same
    # admissions, evictions and finishes at the same times.
    text = path.read_text()
    history, workloads = _outcome(text, hashing=True)
    assert workloads, "the scenario has no Workloads"
    assert _outcome(text, hashing=False) == (history, workloads)
