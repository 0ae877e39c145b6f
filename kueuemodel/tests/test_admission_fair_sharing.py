"""AdmissionFairSharing orders a ClusterQueue's pending workloads by their LocalQueue's
decayed usage (``kueuemodel.admission_order``), as Kueue v0.17 does; by hand.

The scenario of ``apps/queues/tests/test_fair_between_users_real.py``: a 1-GPU
ClusterQueue, LocalQueues ``alice`` and ``bob`` in one namespace, realcluster's opt-in
configuration (1m half-life, 2 s samples, a GPU weighs 100). alice's a1 runs from 0 s to
10 s; alice submits a2 at 2 s, bob b1 at 3 s; each needs the whole GPU.

alice's usage at 10 s, α = 1 − 0.5^(2/60) = 0.02284 per sample: 22m (a1's entry
penalty, 1000 × α truncated), then one sample every 2 s with a1 running,
old × 0.97716 truncated + 22: 43, 64, 84, 104, 123m. bob's is 0. a2 and b1 were
found not to fit while a1 ran; Kueue looks at them again a requeue batch (1 s) after
a1's quota is released, at 11 s. b1 goes first, though a2 is older.
"""

from __future__ import annotations

from kueuemodel import Simulation, local_queue_status, pending_workloads

from .manifests import workload_object

GPU = "nvidia.com/gpu"
CONFIG = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "admissionFairSharing": {
        "usageHalfLifeTime": "1m",
        "usageSamplingInterval": "2s",
        "resourceWeights": {GPU: 100, "cpu": 1, "memory": 0},
    },
}


def _objects(*, scope: bool = True, config: bool = True) -> list[dict]:
    cq_spec = {
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": [GPU],
                "flavors": [{"name": "rf", "resources": [{"name": GPU, "nominalQuota": 1}]}],
            }
        ],
    }
    if scope:
        cq_spec["admissionScope"] = {"admissionMode": "UsageBasedAdmissionFairSharing"}
    local_queues = [
        {
            "kind": "LocalQueue",
            "metadata": {"name": user, "namespace": "team"},
            "spec": {"clusterQueue": "team"},
        }
        for user in ("alice", "bob")
    ]
    return [
        *([CONFIG] if config else []),
        {"kind": "ResourceFlavor", "metadata": {"name": "rf"}},
        {"kind": "ClusterQueue", "metadata": {"name": "team"}, "spec": cq_spec},
        *local_queues,
    ]


def _job(name: str, user: str, seconds: int, priority: int = 0) -> dict:
    return workload_object(
        name, user, namespace="team", requests={GPU: "1"}, seconds=seconds, priority=priority
    )


def _admissions(objects: list[dict], a2_priority: int = 0) -> tuple[Simulation, list[tuple]]:
    sim = Simulation(objects, start_ms=0, record_events=False)
    sim.cluster.history = []
    sim.add_arrivals(
        [
            (0, _job("a1", "alice", 10)),
            (2_000, _job("a2", "alice", 60, a2_priority)),
            (3_000, _job("b1", "bob", 60)),
        ]
    )
    sim.run(12_000)
    admitted = [(at, wl.name) for at, kind, wl, _ in sim.cluster.history if kind == "admit"]
    return sim, admitted


def test_the_queue_with_less_recent_usage_goes_first_though_its_job_is_younger():
    sim, admitted = _admissions(_objects())
    assert admitted == [(0, "a1"), (11_000, "b1")]
    assert sim.cluster.queue_usage["team/alice"].consumed == {GPU: 123}
    # bob's at b1's admission (11 s; the last sample at 10 s found nothing): 1 s of b1
    # folded in, 1000 × (1 − 0.5^(1/60)) = 11.49 → 11, plus its entry penalty 22: 33m.
    assert sim.cluster.queue_usage["team/bob"].consumed == {GPU: 33}
    sim.run(73_000)  # b1 ends at 71 s; a2 is looked at again a second later
    assert sim.cluster.workloads["team/a2"].reserved_ms == 72_000


def test_usage_comes_before_priority():
    # Kueue v0.17 compares the LocalQueues' usage first (queueOrderingFunc), then
    # priority: alice's a2 at priority 100 still waits behind bob's b1 at 0.
    _, admitted = _admissions(_objects(), a2_priority=100)
    assert admitted == [(0, "a1"), (11_000, "b1")]


def test_without_the_admission_scope_the_older_job_goes_first():
    _, admitted = _admissions(_objects(scope=False))
    assert admitted == [(0, "a1"), (11_000, "a2")]


def test_without_kueues_configuration_block_the_admission_scope_is_ignored():
    sim, admitted = _admissions(_objects(config=False))
    assert admitted == [(0, "a1"), (11_000, "a2")]
    assert sim.cluster.queue_usage == {}


def test_every_local_queue_reports_its_usage_in_its_status_as_kueue_writes_it():
    sim, _ = _admissions(_objects())
    # Read at 12 s, when alice's next sample falls due: a1 is gone, so 123 (worked out
    # above) × 0.97716 = 120.2 → 120m. bob's figure is from b1's admission at 11 s (33m).
    alice = local_queue_status(sim.cluster, "team", "alice")["fairSharing"]
    assert alice["admissionFairSharingStatus"] == {
        "consumedResources": {GPU: "120m"},
        "lastUpdate": "1970-01-01T00:00:12Z",
    }
    bob = local_queue_status(sim.cluster, "team", "bob")["fairSharing"]
    assert bob["admissionFairSharingStatus"]["consumedResources"] == {GPU: "33m"}
    # Kueue samples every LocalQueue once configured, whether or not its ClusterQueue
    # orders by it; without the Configuration block there is nothing to report.
    unscoped, _ = _admissions(_objects(scope=False))
    assert "fairSharing" in local_queue_status(unscoped.cluster, "team", "alice")
    plain, _ = _admissions(_objects(config=False))
    assert "fairSharing" not in local_queue_status(plain.cluster, "team", "alice")


def test_a_rebuilt_run_keeps_the_usage_kueue_had():
    # The live simulated cluster builds a new run when a queue object changes; Kueue's
    # figures live on across such changes, so alice still waits behind bob afterwards.
    sim, _ = _admissions(_objects())
    rebuilt = Simulation(_objects(), start_ms=12_000, record_events=False)
    assert rebuilt.cluster.queue_usage["team/alice"].consumed == {}
    rebuilt.keep_queue_usage(sim)
    assert rebuilt.cluster.queue_usage["team/alice"].consumed == {GPU: 123}
    assert rebuilt.cluster.queue_usage["team/alice"].last_update_ms == 10_000


def test_the_pending_list_kueue_serves_is_in_the_usage_order():
    # At 5 s a1 runs, a2 (alice, 2 s) and b1 (bob, 3 s) wait; alice's usage is 64m (a1's
    # penalty 22, then the samples at 2 s and 4 s: 43, 64), bob's 0: b1 is first in the
    # ClusterQueue, though younger; each is first in its own LocalQueue.
    sim = Simulation(_objects(), start_ms=0, record_events=False)
    sim.add_arrivals(
        [
            (0, _job("a1", "alice", 10)),
            (2_000, _job("a2", "alice", 60)),
            (3_000, _job("b1", "bob", 60)),
        ]
    )
    sim.run(5_000)
    items = pending_workloads(sim.cluster, "team")["items"]
    assert [(i["metadata"]["name"], i["positionInClusterQueue"]) for i in items] == [
        ("b1", 0),
        ("a2", 1),
    ]
    assert [i["positionInLocalQueue"] for i in items] == [0, 0]
    assert sim.cluster.queue_usage["team/alice"].consumed == {GPU: 64}


def _preempting_objects(*, config: bool) -> list[dict]:
    """A 2-GPU queue that preempts lower priorities, and carol's LocalQueue besides."""
    objects = _objects(config=config)
    cq = next(o for o in objects if o["kind"] == "ClusterQueue")
    cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = 2
    cq["spec"]["preemption"] = {"withinClusterQueue": "LowerPriority"}
    carol = {"kind": "LocalQueue", "metadata": {"name": "carol", "namespace": "team"}}
    return [*objects, {**carol, "spec": {"clusterQueue": "team"}}]


def _victim(objects: list[dict]) -> str:
    sim = Simulation(objects, start_ms=0, record_events=False, pod_stop_ms=1_000)
    sim.cluster.history = []
    sim.add_arrivals(
        [
            (0, _job("a1", "alice", 3600)),
            (20_000, _job("b1", "bob", 3600)),
            (21_000, _job("h1", "carol", 60, priority=100)),
        ]
    )
    sim.run(25_000)
    (victim,) = [wl.name for _, kind, wl, _ in sim.cluster.history if kind == "evict"]
    return victim


def test_the_victim_is_taken_from_the_busiest_local_queue_first():
    # At 21 s the queue is full (a1 since 0 s, b1 since 20 s); carol's h1 (priority 100)
    # preempts one of them. Kueue's victim order (preemption/common/ordering.go) puts the
    # LocalQueue with the higher usage first, before "most recently admitted": alice's
    # (22m at 0 s, then ten samples with a1 running) is far above bob's (b1's entry
    # penalty, 22m), so a1 goes, though b1 is the more recent.
    assert _victim(_preempting_objects(config=True)) == "a1"
    # Without the block, the most recently admitted goes.
    assert _victim(_preempting_objects(config=False)) == "b1"
