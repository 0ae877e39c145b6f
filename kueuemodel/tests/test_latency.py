"""The opt-in latency model (``kueuemodel.Latency``): every expected time below is
worked out by hand from the scenario and the parameters, not by the engine."""

from __future__ import annotations

import pytest

from kueuemodel import Latency, Simulation
from kueuemodel.latency import ApiClient

from .manifests import queue_objects, resource_flavor, workload_object

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def _simulate(queues: list[list[dict]], arrivals: list[tuple[int, dict]], **kwargs) -> dict:
    objects = [resource_flavor()]
    for queue in queues:
        objects += queue
    sim = Simulation(objects, start_ms=T0, record_events=False, **kwargs)
    sim.cluster.history = []
    sim.add_arrivals([(T0 + at, wl) for at, wl in arrivals])
    sim.run()
    times: dict[tuple[str, str], list[int]] = {}
    for at, kind, wl, _ in sim.cluster.history:
        times.setdefault((kind, wl.name), []).append(at - T0)
    return times


def test_the_default_is_no_latency():
    assert not Latency().paced
    assert Latency(finish_ms=5).paced is False
    assert Latency(cycle_ms=1).paced and Latency(api_qps=1).paced and Latency(write_ms=1).paced


@pytest.mark.parametrize(
    "field, value",
    [("cycle_ms", -1), ("api_qps", -0.5), ("write_ms", -1), ("finish_ms", -1), ("api_burst", 0)],
)
def test_it_refuses_impossible_values(field, value):
    with pytest.raises(ValueError, match=field):
        Latency(**{field: value})


def test_the_rate_limiter_hands_out_writes_in_order():
    # 2 writes a second, 2 saved: two at once, then one every 500 ms; after a
    # quiet 2 s the bucket is full again (tokens -2 + 2 s x 2/s = 2).
    client = ApiClient(Latency(api_qps=2, api_burst=2, write_ms=7))
    assert [client.reserve(0) for _ in range(4)] == [7, 7, 507, 1007]
    assert client.reserve(3000) == 3007


def test_one_head_per_queue_per_cycle():
    # Both fit at once, but a queue offers one head per cycle: b is admitted one
    # cycle (40 ms) after a, where the unpaced engine admits both at 0.
    queue = queue_objects("q", cpu=2)
    arrivals = [(0, workload_object("a", "q")), (0, workload_object("b", "q"))]
    paced = _simulate([queue], arrivals, latency=Latency(cycle_ms=40))
    assert paced[("admit", "a")] == [0] and paced[("admit", "b")] == [40]
    unpaced = _simulate(
        [queue_objects("q", cpu=2)],
        [(0, workload_object("a", "q")), (0, workload_object("b", "q"))],
    )
    assert unpaced[("admit", "a")] == unpaced[("admit", "b")] == [0]


def test_an_admission_write_delays_the_run_but_not_the_cycle():
    # Three queues admit their heads in one cycle at 0; at 10 writes/s with no
    # burst the writes land at 0+5, 100+5, 200+5 ms, each job then runs 1 s and
    # Kueue sees it finished 30 ms later.
    queues = [queue_objects(name, cpu=1) for name in ("x", "y", "z")]
    arrivals = [(0, workload_object(name, name, seconds=1)) for name in ("x", "y", "z")]
    latency = Latency(api_qps=10, api_burst=1, write_ms=5, finish_ms=30)
    times = _simulate(queues, arrivals, latency=latency)
    assert [times[("admit", n)] for n in ("x", "y", "z")] == [[0], [0], [0]]
    assert [times[("finish", n)] for n in ("x", "y", "z")] == [[1035], [1135], [1235]]


def test_a_status_write_blocks_the_cycle():
    # Queue q holds one 1-cpu job. Cycle 1 (0 ms) admits a; cycle 2 (10 ms) sends b
    # back and patches its status: the write takes 300 ms, so the cycle ends at
    # 310 and c, which arrived in queue r at 20 ms, is admitted then.
    queues = [queue_objects("q", cpu=1), queue_objects("r", cpu=1)]
    arrivals = [
        (0, workload_object("a", "q")),
        (0, workload_object("b", "q")),
        (20, workload_object("c", "r")),
    ]
    times = _simulate(queues, arrivals, latency=Latency(cycle_ms=10, write_ms=300))
    assert times[("admit", "a")] == [0]
    assert times[("admit", "c")] == [310]


def test_a_preemptor_waits_for_the_eviction_write_and_the_pods():
    # low runs from 0; high arrives at 1000 and preempts it. The eviction patch
    # lands at 1000 + 50, the victim's pods stop 200 ms later, and high is
    # admitted in the cycle that starts then (1250).
    queue = queue_objects("q", cpu=1, within="LowerPriority")
    arrivals = [
        (0, workload_object("low", "q", priority=1)),
        (1000, workload_object("high", "q", priority=9)),
    ]
    times = _simulate([queue], arrivals, latency=Latency(cycle_ms=10, write_ms=50), pod_stop_ms=200)
    assert times[("evict", "low")] == [1000]
    assert times[("release", "low")] == [1250]
    assert times[("admit", "high")] == [1250]


def test_an_unchanged_status_is_not_written_again():
    # q (StrictFIFO, 1 cpu) runs a; b waits and its first pending status costs a
    # 300 ms write (cycle 10-310). At 1000 c and d arrive in r, which lends
    # nothing to q: the cycle at 1000 re-evaluates b with the same status (no
    # write) and admits one of c and d (same age), so it ends at 1010 and the
    # other is admitted then, not at 1300.
    q = queue_objects("q", cpu=1, cohortName="pool", queueingStrategy="StrictFIFO")
    r = queue_objects("r", cpu=2, cohortName="pool", quota={"lendingLimit": 0})
    arrivals = [
        (0, workload_object("a", "q", seconds=100)),
        (0, workload_object("b", "q")),
        (1000, workload_object("c", "r")),
        (1000, workload_object("d", "r")),
    ]
    times = _simulate([q, r], arrivals, latency=Latency(cycle_ms=10, write_ms=300))
    assert sorted(times[("admit", "c")] + times[("admit", "d")]) == [1000, 1010]


def test_status_writes_wait_behind_the_cycles_admissions():
    # One cycle at 0 walks p (big can never fit: a status write) before q (small is
    # admitted), but Kueue patches statuses after the walk: at 10 writes/s the
    # admission lands at 5 and the status at 105, when the cycle ends. small
    # finishes at 5 + 1000; late, in r at 50, waits for the next cycle (105).
    queues = [queue_objects("p", cpu=1), queue_objects("q", cpu=1), queue_objects("r", cpu=1)]
    arrivals = [
        (0, workload_object("big", "p", cpu=2)),
        (0, workload_object("small", "q", seconds=1)),
        (50, workload_object("late", "r")),
    ]
    times = _simulate(queues, arrivals, latency=Latency(api_qps=10, api_burst=1, write_ms=5))
    assert times[("admit", "small")] == [0]
    assert times[("finish", "small")] == [1005]
    assert times[("admit", "late")] == [105]


def test_watchers_see_an_admission_when_its_write_lands():
    # Kueue's performance runner (its recorder before kueue 94f89ec95d) timed an
    # admission when its informer saw the Admitted update, i.e. when the write
    # landed. x, y and z are decided in the cycle at 0; at 10 writes/s with no
    # burst their writes land at 0+5, 100+5 and 200+5 ms.
    objects = [resource_flavor()]
    for name in ("x", "y", "z"):
        objects += queue_objects(name, cpu=1)
    latency = Latency(api_qps=10, api_burst=1, write_ms=5)
    sim = Simulation(objects, start_ms=T0, record_events=False, latency=latency)
    sim.add_arrivals([(T0, workload_object(name, name)) for name in ("x", "y", "z")])
    sim.run()
    landed = {key.split("/")[1]: at - T0 for key, at in sim.admission_landed_ms.items()}
    assert landed == {"x": 5, "y": 105, "z": 205}


def test_an_unpaced_run_has_no_admission_writes():
    sim = Simulation(
        [resource_flavor(), *queue_objects("q", cpu=1)],
        start_ms=T0,
        record_events=False,
    )
    sim.add_workload(workload_object("a", "q"))
    sim.run()
    assert sim.cluster.workloads["q/a"].admission is not None
    assert sim.admission_landed_ms == {}


@pytest.mark.parametrize("hashing, small_admitted_at", [(True, 10), (False, 20)])
def test_equivalence_hashing_parks_a_whole_shape_in_one_cycle(hashing, small_admitted_at):
    # q has 2 cpu. big1 and big2 (3 cpu, priority 9, queued first) can never fit;
    # small (1 cpu) can. A cycle takes 10 ms. With hashing the cycle at 0 finds
    # big1 inadmissible and parks big2 with it, so small is head at 10. Without
    # (Kueue v0.17's default) big2 is head at 10 and parked then, and small waits
    # for the cycle at 20. Unpaced, both reach the same state at 0.
    def arrivals() -> list[tuple[int, dict]]:
        return [
            (0, workload_object("big1", "q", cpu=3, priority=9)),
            (0, workload_object("big2", "q", cpu=3, priority=9)),
            (0, workload_object("small", "q")),
        ]

    paced = _simulate(
        [queue_objects("q", cpu=2)],
        arrivals(),
        latency=Latency(cycle_ms=10),
        equivalence_hashing=hashing,
    )
    assert paced[("admit", "small")] == [small_admitted_at]
    assert ("admit", "big1") not in paced and ("admit", "big2") not in paced
    unpaced = _simulate([queue_objects("q", cpu=2)], arrivals(), equivalence_hashing=hashing)
    assert unpaced[("admit", "small")] == [0]
