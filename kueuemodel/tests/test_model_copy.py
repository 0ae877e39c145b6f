"""``model_copy``: one Workload read from a cluster feeds several simulations, each
writing status into its own copy, while the original stays as it was read."""

from __future__ import annotations

import copy

from kueuemodel import Simulation, model_copy, with_run_time

from .manifests import queue_objects, resource_flavor, workload_object

START_MS = 1_000_000


def _run(workloads: list[dict]) -> Simulation:
    sim = Simulation(
        [resource_flavor(), *queue_objects("a", 1, within="LowerPriority")], start_ms=START_MS
    )
    for obj in workloads:
        sim.add_workload(obj)
    sim.run(until_ms=START_MS + 1_000)
    return sim


def _reserved(obj: dict) -> str:
    conditions = (obj.get("status") or {}).get("conditions") or ()
    return next(c["status"] for c in conditions if c["type"] == "QuotaReserved")


def test_it_leaves_the_original_unwritten_and_shares_the_spec():
    first, second = workload_object("w1", "a"), workload_object("w2", "a")
    before = copy.deepcopy([first, second])
    copies = [model_copy(first), model_copy(second)]
    _run(copies)
    # The queue holds 1 CPU: w1 is admitted, w2 waits; both written into the copies only.
    assert [_reserved(c) for c in copies] == ["True", "False"]
    assert [first, second] == before
    assert copies[0]["spec"] is first["spec"]


def test_a_written_status_is_copied_so_a_second_run_cannot_change_it():
    admitted = _run([model_copy(workload_object("w1", "a"))]).workloads()[0]
    before = copy.deepcopy(admitted)
    preemptor = workload_object("w3", "a", priority=10)
    second = _run([model_copy(admitted), preemptor]).workloads()
    # w3 outranks w1 in a LowerPriority queue of 1 CPU: w1 is evicted in the second run.
    evicted = next(w for w in second if w["metadata"]["name"] == "w1")
    assert any(
        c["type"] == "Evicted" and c["status"] == "True" for c in evicted["status"]["conditions"]
    )
    assert admitted == before


def test_with_run_time_annotates_the_copy_only():
    original = workload_object("w1", "a", seconds=10)
    timed = with_run_time(original, 60_000, START_MS)
    assert timed["metadata"]["annotations"]["simcluster/duration"] == "60000ms"
    assert original["metadata"]["annotations"]["simcluster/duration"] == "10s"
