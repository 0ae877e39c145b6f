"""Preemption is asynchronous, as in Kueue: a victim keeps its quota until its
pods have stopped, the preemptor waits for it, and nothing is evicted twice.
Every instant settles (bounded by counting scheduling cycles, not by a timer);
a policy that makes Kueue loop makes the engine loop once per pod stop, never
inside one instant."""

from __future__ import annotations

import copy

import pytest

from kueuemodel import simulation
from kueuemodel.clock import parse_timestamp
from kueuemodel.scenario import build_simulation

T0 = "2026-03-01T10:00:0{}Z"


def _queue(name: str, reclaim: str) -> str:
    return f"""
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  namespaceSelector: {{}}
  cohortName: pool
  preemption: {{reclaimWithinCohort: {reclaim}}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{{name: cpu, nominalQuota: 4}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: main, namespace: {name}}}
spec: {{clusterQueue: {name}}}
"""


def _workload(name: str, queue: str, cpu: int, priority: int, second: int, running: bool) -> str:
    doc = f"""
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: {queue}, creationTimestamp: "{T0.format(second)}"}}
spec:
  queueName: main
  priority: {priority}
  podSets: [{{name: main, count: 1, template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]}}}}}}]
"""
    if running:
        doc += f"""status:
  admission:
    clusterQueue: {queue}
    podSetAssignments: [{{name: main, flavors: {{cpu: default}}, resourceUsage: {{cpu: "{cpu}"}}, count: 1}}]
  conditions:
  - {{type: QuotaReserved, status: "True", reason: QuotaReserved, message: reserved, lastTransitionTime: "{T0.format(second)}"}}
  - {{type: Admitted, status: "True", reason: Admitted, message: admitted, lastTransitionTime: "{T0.format(second)}"}}
"""
    return doc


def scenario(reclaim: str, old_cpu: int) -> str:
    """Queue ``a`` reclaims 2 cpu from borrower ``b``, but an older head of ``a``
    (``old``, inadmissible) comes back first whenever quota is released."""
    docs = [
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n",
        _queue("a", reclaim),
        _queue("b", "Never"),
        _workload("a-run", "a", 2, 10, 0, running=True),
        _workload("b-run", "b", 4, 1, 0, running=True),
        _workload("victim", "b", 2, 1, 1, running=True),
        _workload("old", "a", old_cpu, 10, 2, running=False),
        _workload("new", "a", 2, 10, 3, running=False),
        _workload("b-wait", "b", 2, 1, 4, running=False),
    ]
    return "---".join(docs)


@pytest.fixture
def cycles(monkeypatch):
    """Counts scheduling cycles; an instant that does not settle fails fast."""
    counter = {"n": 0}
    real = simulation.run_cycle

    def counting(*args):
        counter["n"] += 1
        return real(*args)

    monkeypatch.setattr(simulation, "run_cycle", counting)
    monkeypatch.setattr(simulation, "MAX_CYCLES_PER_INSTANT", 200)
    return counter


def by_name(sim) -> dict:
    return {w["metadata"]["name"]: w for w in sim.workloads()}


def condition(wl: dict, kind: str) -> dict:
    return next(c for c in wl["status"]["conditions"] if c["type"] == kind)


def test_a_victim_keeps_its_quota_until_its_pods_stop(cycles):
    sim = build_simulation(scenario("LowerPriority", old_cpu=4), pod_stop_ms=5000)
    start = sim.cluster.now_ms
    sim.run(until_ms=start + 4999)
    wls = by_name(sim)
    assert condition(wls["victim"], "Evicted")["reason"] == "Preempted"
    assert condition(wls["victim"], "QuotaReserved")["status"] == "True"
    assert condition(wls["new"], "QuotaReserved")["reason"] == "WaitingForPreemptedWorkloads"
    sim.run(until_ms=start + 5000)
    wls = by_name(sim)
    assert condition(wls["victim"], "QuotaReserved")["status"] == "False"
    assert condition(wls["victim"], "Requeued")["status"] == "True"
    admitted = condition(wls["new"], "Admitted")
    assert admitted["status"] == "True"
    assert parse_timestamp(admitted["lastTransitionTime"]) == (start + 5000) // 1000 * 1000
    # The preemptor re-found the same stopping victim every cycle; it was evicted once.
    assert sim.cluster.workloads["b/victim"].evictions == 1
    assert cycles["n"] < 20


def test_a_no_fit_head_does_not_hide_the_reclaiming_workload(cycles):
    # The loop of kubernetes-sigs/kueue#6929: "old" can never fit and, requeued at
    # every release, used to hide "new" while the victim re-took the quota. In
    # Kueue a preemptor pending its preemption is requeued at once (active), while
    # the parked "old" comes back only one requeue batch (1 s) after the release:
    # "new" is admitted the moment the victim's pods stop, and nobody is evicted twice.
    sim = build_simulation(scenario("Any", old_cpu=6), pod_stop_ms=1000)
    start = sim.cluster.now_ms
    sim.run(until_ms=start + 10_000)
    wls = by_name(sim)
    admitted = condition(wls["new"], "Admitted")
    assert parse_timestamp(admitted["lastTransitionTime"]) == start + 1000
    assert sim.cluster.workloads["b/victim"].evictions == 1
    assert condition(wls["old"], "QuotaReserved")["status"] == "False"
    assert cycles["n"] < 200


def test_a_victimless_head_holds_its_nominal_quota_for_the_cycle(cycles):
    # "old" could fit its nominal by preemption but has no victims; as in Kueue
    # it reserves a's unused nominal, so lower-priority "b-wait" cannot borrow
    # the quota "new" just reclaimed and be preempted in turn.
    sim = build_simulation(scenario("LowerPriority", old_cpu=4))
    sim.run()
    wls = by_name(sim)
    assert condition(wls["new"], "Admitted")["status"] == "True"
    assert sim.cluster.workloads["b/victim"].evictions == 1
    assert sim.cluster.workloads["b/b-wait"].evictions == 0
    assert condition(wls["b-wait"], "QuotaReserved")["status"] == "False"
    assert cycles["n"] < 20


def test_a_workload_resubmitted_during_an_instant_arrives_at_the_next(cycles):
    # The what-if replay resubmits a preempted job from the transition log,
    # inside the instant; that copy must not be able to spin the instant either.
    sim = build_simulation(scenario("LowerPriority", old_cpu=4))

    class Resubmit(list):
        def append(self, item):
            _at, kind, wl, _cq = item
            if kind == "evict":
                wl.active = False
                fresh = copy.deepcopy(wl.obj)
                fresh.pop("status", None)
                sim.add_workload(fresh)

    sim.cluster.history = Resubmit()
    sim.run()
    wls = by_name(sim)
    assert condition(wls["new"], "Admitted")["status"] == "True"
    assert "status" not in wls["victim"] or not wls["victim"]["status"].get("admission")
    assert cycles["n"] < 20


def coinciding_scenario() -> str:
    """As ``scenario``, with "new" arriving at +5 s just as "c-run", in a third queue of
    the cohort, ends there (on a flavor a and b do not use): that release's requeue
    batch falls due at +6 s, the very instant the victim's pods (evicted at +5 s,
    1 s to stop) are gone."""
    third_queue = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spare}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: c}
spec:
  namespaceSelector: {}
  cohortName: pool
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: spare, resources: [{name: cpu, nominalQuota: 1}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: main, namespace: c}
spec: {clusterQueue: c}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: c-run
  namespace: c
  creationTimestamp: "2026-03-01T10:00:04Z"
  annotations: {simcluster/duration: 5s}
spec:
  queueName: main
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
"""
    new = _workload("new", "a", 2, 10, 0, running=False).replace(
        'creationTimestamp: "2026-03-01T10:00:00Z"', "annotations: {simcluster/arrival: 5s}"
    )
    docs = [
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n",
        _queue("a", "Any"),
        _queue("b", "Never"),
        third_queue,
        _workload("a-run", "a", 2, 10, 0, running=True),
        _workload("b-run", "b", 4, 1, 0, running=True),
        _workload("victim", "b", 2, 1, 1, running=True),
        _workload("old", "a", 20, 10, 2, running=False),
        new,
    ]
    return "---".join(docs)


def test_a_requeue_batch_due_as_the_victims_pods_stop_does_not_hide_the_preemptor(cycles):
    # Kueue arms the requeue batch when "c-run" releases its quota, and evicts the
    # victim in a scheduling cycle after that: when both fall due in the same second,
    # the batch fires first ("old", back, fails and is parked again) and the
    # victim's pods stop after it, so "new" meets the freed quota with "old" parked
    # and is admitted. Handled together, "old" hid "new" in the very cycle the
    # victim's quota came free, the victim borrowed it again and "new" preempted it
    # again, every second, for ever.
    sim = build_simulation(coinciding_scenario(), pod_stop_ms=1000)
    start = sim.cluster.now_ms
    sim.run(until_ms=start + 60_000)
    wls = by_name(sim)
    admitted = condition(wls["new"], "Admitted")
    assert admitted["status"] == "True"
    assert parse_timestamp(admitted["lastTransitionTime"]) == start + 6000
    assert sim.cluster.workloads["b/victim"].evictions == 1
    assert condition(wls["victim"], "QuotaReserved")["status"] == "False"
    assert condition(wls["old"], "QuotaReserved")["status"] == "False"
    assert cycles["n"] < 200
