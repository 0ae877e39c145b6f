"""``model_copy``: one Workload read from a cluster feeds several simulations, each
writing status into its own copy, while the original stays as it was read."""

from __future__ import annotations

import copy

from kueuemodel import Simulation, model_copy, with_run_time

from .manifests import queue_objects, resource_flavor, workload_object

START_MS = 1_000_000


def _run(workloads: list[dict], arriving: tuple[dict, ...] = ()) -> list[dict]:
    """The workloads after a second on a LowerPriority queue of 1 CPU; ``arriving``
    come half a second in."""
    sim = Simulation(
        [resource_flavor(), *queue_objects("a", 1, within="LowerPriority")], start_ms=START_MS
    )
    for obj in workloads:
        sim.add_workload(obj)
    sim.add_arrivals([(START_MS + 500, obj) for obj in arriving])
    sim.run(until_ms=START_MS + 1_000)
    return sim.workloads()


def _named(workloads: list[dict], name: str) -> dict:
    return next(w for w in workloads if w["metadata"]["name"] == name)


def _reserved(obj: dict) -> str:
    conditions = (obj.get("status") or {}).get("conditions") or ()
    return next(c["status"] for c in conditions if c["type"] == "QuotaReserved")


def _evictions(obj: dict) -> int:
    return sum(e["count"] for e in obj["status"]["schedulingStats"]["evictions"])


def test_it_leaves_the_original_unwritten_and_shares_the_spec():
    first, second = workload_object("w1", "a"), workload_object("w2", "a")
    before = copy.deepcopy([first, second])
    copies = [model_copy(first), model_copy(second)]
    _run(copies)
    # The queue holds 1 CPU: w1 is admitted, w2 waits; both written into the copies only.
    assert [_reserved(c) for c in copies] == ["True", "False"]
    assert [first, second] == before
    assert copies[0]["spec"] is first["spec"]


def test_a_written_status_is_copied_so_a_later_run_cannot_change_it():
    admitted = _run([model_copy(workload_object("w1", "a"))])[0]
    before_admitted = copy.deepcopy(admitted)
    # w3 outranks w1 on a LowerPriority queue of 1 CPU: w1 is evicted, once...
    evicted = _named(_run([model_copy(admitted)], (workload_object("w3", "a", priority=10),)), "w1")
    assert _evictions(evicted) == 1
    before_evicted = copy.deepcopy(evicted)
    # ...and, readmitted alone and evicted again, twice, counted in the copy only.
    readmitted = _run([model_copy(evicted)], (workload_object("w3", "a", priority=10),))
    assert _evictions(_named(readmitted, "w1")) == 2
    assert admitted == before_admitted
    assert evicted == before_evicted


def test_with_run_time_annotates_the_copy_only():
    original = workload_object("w1", "a", seconds=10)
    timed = with_run_time(original, 60_000, START_MS)
    assert timed["metadata"]["annotations"]["simcluster/duration"] == "60000ms"
    assert original["metadata"]["annotations"]["simcluster/duration"] == "10s"
