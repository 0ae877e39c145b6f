"""A forecast continues a running Kueue: each LocalQueue's AdmissionFairSharing usage
starts at the figure its status reports (``first_admissions``), by hand.

A 1-GPU ClusterQueue ordered by usage (1m half-life, 2 s samples, a GPU weighs 100);
LocalQueues alice, bob and carol. At 08:00:00 carol's r (oldest, 10 s) and alice's a1
(older) and bob's b1 (10 s each) are pending. r goes first (all three queues at 0 when
nothing is reported; r is oldest). It ends at 10 s; a requeue batch (1 s) later one of
a1 and b1 starts, at 11 s, the other when it ends, at 22 s.

Nothing reported: alice and bob both at 0, so the older a1 starts at 11 s. alice's
status reports 500m GPUs as of 08:00:00: at 11 s her usage is still about 500m ×
0.977^5 ≈ 445m, weighing 44.5 against bob's 0, so b1 starts at 11 s and a1 at 22 s.
"""

from __future__ import annotations

from kueuemodel import first_admissions, parse_timestamp

from .manifests import workload_object

GPU = "nvidia.com/gpu"
START = "2026-12-06T08:00:00Z"
START_MS = parse_timestamp(START)
CONFIG = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta1",
    "kind": "Configuration",
    "admissionFairSharing": {
        "usageHalfLifeTime": "1m",
        "usageSamplingInterval": "2s",
        "resourceWeights": {GPU: 100, "cpu": 1, "memory": 0},
    },
}


def _local_queue(user: str, reported: str | None) -> dict:
    lq = {
        "kind": "LocalQueue",
        "metadata": {"name": user, "namespace": "team"},
        "spec": {"clusterQueue": "team"},
    }
    if reported is not None:
        fair = {"consumedResources": {GPU: reported}, "lastUpdate": START}
        lq["status"] = {"fairSharing": {"weightedShare": 0, "admissionFairSharingStatus": fair}}
    return lq


def _objects(alice_reports: str | None) -> list[dict]:
    flavors = [{"name": "rf", "resources": [{"name": GPU, "nominalQuota": 1}]}]
    cq_spec = {
        "namespaceSelector": {},
        "resourceGroups": [{"coveredResources": [GPU], "flavors": flavors}],
        "admissionScope": {"admissionMode": "UsageBasedAdmissionFairSharing"},
    }
    return [
        CONFIG,
        {"kind": "ResourceFlavor", "metadata": {"name": "rf"}},
        {"kind": "ClusterQueue", "metadata": {"name": "team"}, "spec": cq_spec},
        _local_queue("alice", alice_reports),
        _local_queue("bob", None),
        _local_queue("carol", None),
    ]


def _job(name: str, user: str, created: str) -> dict:
    return workload_object(name, user, namespace="team", requests={GPU: "1"}, created=created)


def _starts(alice_reports: str | None) -> dict[str, float]:
    jobs = [
        _job("r", "carol", "2026-12-06T07:50:00Z"),
        _job("a1", "alice", "2026-12-06T07:55:00Z"),
        _job("b1", "bob", "2026-12-06T07:58:00Z"),
    ]
    starts = first_admissions(
        _objects(alice_reports), jobs, start_ms=START_MS, until_ms=START_MS + 60_000
    )
    return {
        job["metadata"]["name"]: (s - START_MS) / 1000 for job, s in zip(jobs, starts, strict=True)
    }


def test_with_nothing_reported_the_older_workload_goes_first():
    assert _starts(None) == {"r": 0.0, "a1": 11.0, "b1": 22.0}


def test_a_queue_that_reports_recent_usage_waits_behind_one_that_used_nothing():
    assert _starts("500m") == {"r": 0.0, "b1": 11.0, "a1": 22.0}


def test_a_reported_usage_long_decayed_orders_as_nothing():
    # Reported at 08:00 as 1m (0.001 GPU): the first sample truncates it away.
    assert _starts("1m") == {"r": 0.0, "a1": 11.0, "b1": 22.0}
