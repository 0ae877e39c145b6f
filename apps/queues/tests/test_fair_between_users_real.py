"""Fair between users on the real Kueue v0.17.0 (KWOK pods), with the ClusterQueue and
LocalQueues the portal renders, on a control plane of its own whose Kueue Configuration
has the ``admissionFairSharing`` block (``realcluster.kueue_manifests.ADMISSION_FAIR_SHARING``);
and the same on the simulated cluster started with ``--admission-fair-sharing`` (the same
block), which must give the order the real Kueue gave.

By hand: the team's ClusterQueue has 1 GPU. alice's job a1 (1 GPU) is admitted alone and
runs 10 s. While it runs alice submits a2, then bob submits b1 (1 GPU each, same priority),
so a2 is the older. When a1 ends only one of them fits.

- Fair between users: Kueue admits first from the LocalQueue with the lower decayed usage.
  alice's carries a1's (its entry penalty alone is 1000m × (1 − 0.5^(2 s / 60 s)) = 22m
  GPU, then about as much per 2 s sample while a1 runs); bob's is 0. So b1, then a2.
- Not fair between users (the same objects without ``admissionScope``): queue order,
  equal priority, so the older first: a2, then b1.
"""

from __future__ import annotations

import calendar
import json
import time
from types import SimpleNamespace

import pytest
import yaml

from apps.queues import kueue
from apps.queues.user_queues import submission_queue, user_local_queue_name
from realcluster.nodes import gpu_node
from testkit.nodes import add_node
from testkit.real_cluster import suspended_job
from testkit.sim_cluster import SimCluster
from testkit.waiting import wait_until

WAIT = 180  # seconds: generous, for a loaded 2-core machine
TIER = "afs-normal"
STAMP = "%Y-%m-%dT%H:%M:%SZ"


class _SimPlane:
    """The simulated cluster behind the two calls this file makes of a control plane."""

    def __init__(self, sim: SimCluster) -> None:
        self.sim = sim

    def kubectl(self, *args: str) -> object:
        return self.sim.kubectl(*args)

    def apply(self, objects: list[dict]) -> None:
        text = yaml.safe_dump_all(objects, sort_keys=False)
        done = self.sim.kubectl("apply", "--server-side", "-f", "-", stdin=text)
        assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module", params=["sim", "real"])
def plane(request, tmp_path_factory):
    """A control plane of this file's own (the session's runs Kueue without the
    admissionFairSharing block, as other tests expect), or the simulated cluster with it."""
    setup = [
        kueue.render_flavor({"name": "afs-h100", "node_labels": {"gpu": "afs-h100"}}),
        kueue.render_priority_class({"name": TIER, "value": 100}),
    ]
    if request.param == "sim":
        sim = SimCluster(tmp_path_factory.mktemp("afs-sim"), args=("--admission-fair-sharing",))
        sim.start()
        add_node(sim, "afs-gpu-0", labels={"gpu": "afs-h100"})
        _SimPlane(sim).apply(setup)
        yield _SimPlane(sim)
        sim.stop()
        return
    from realcluster.controlplane import ControlPlane

    plane = ControlPlane(tmp_path_factory.mktemp("afs"), admission_fair_sharing=True).up()
    node = gpu_node("afs-gpu-0", labels={"gpu": "afs-h100"}, resources={"nvidia.com/gpu": "8"})
    plane.apply([node, *setup])
    try:
        yield plane
    finally:
        plane.down()


def _team(plane, slug: str, fair: bool) -> str:
    """Team ``slug`` (members alice and bob, one namespace) with a 1-GPU queue, rendered
    as the portal renders it; returns the namespace."""
    namespace = f"{slug}-ns"
    team = kueue.TeamSpec(slug, "", (namespace,), ("alice", "bob"))
    queue = {
        "name": slug,
        "team": slug,
        "cohort": None,
        "fair_weight": "1",
        "queueing_strategy": "BestEffortFIFO",
        "stop_policy": "None",
        "fair_between_users": fair,
        "preemption": {
            "reclaim_within_cohort": "Never",
            "within_cluster_queue": "Never",
            "borrow_within_cohort": "Never",
            "borrow_max_priority_threshold": None,
        },
        "quotas": [{"flavor": "afs-h100", "resource": "nvidia.com/gpu", "nominal": "1"}],
    }
    plane.apply([kueue.render_namespace(team, namespace), *kueue.render_queue(queue, [team])])
    return namespace


def _submit(plane, queue: SimpleNamespace, namespace: str, user: str, name: str, runs: str):
    """``user``'s Job in the LocalQueue the portal would pick (their own, or the team's)."""
    local = submission_queue(queue, user)
    plane.apply([suspended_job(name, namespace, local, TIER, gpus=1, runs=runs)])


def _workloads(plane, namespace: str) -> dict[str, dict]:
    """Each Job's Workload by the Job's name."""
    listed = plane.kubectl("get", "workloads.kueue.x-k8s.io", "-n", namespace, "-o", "json")
    assert listed.returncode == 0, listed.stderr
    return {
        w["metadata"]["ownerReferences"][0]["name"]: w for w in json.loads(listed.stdout)["items"]
    }


def _admitted(workload: dict) -> bool:
    return bool((workload.get("status") or {}).get("admission"))


def _finished(workload: dict) -> bool:
    conditions = (workload.get("status") or {}).get("conditions") or []
    return any(c["type"] == "Finished" and c["status"] == "True" for c in conditions)


def _admission_order(plane, slug: str, fair: bool) -> list[str]:
    namespace = _team(plane, slug, fair)
    queue = SimpleNamespace(name=slug, fair_between_users=fair)
    _submit(plane, queue, namespace, "alice", "a1", runs="10s")
    a1_admitted = lambda: _admitted(_workloads(plane, namespace).get("a1", {}))  # noqa: E731
    wait_until(a1_admitted, timeout=WAIT, interval=0.5)
    _submit(plane, queue, namespace, "alice", "a2", runs="1h")
    created = wait_until(lambda: _workloads(plane, namespace).get("a2"), WAIT, interval=0.5)
    # Creation times have whole seconds: b1 must be a second younger for the order to hold.
    # The simulated cluster stamps with its own clock, up to a tick behind the wall clock,
    # so wait until the wall clock is two seconds past a2's second, not one.
    stamp = calendar.timegm(time.strptime(created["metadata"]["creationTimestamp"], STAMP))
    wait_until(lambda: time.time() >= stamp + 2, 5, 0.1)
    _submit(plane, queue, namespace, "bob", "b1", runs="1h")
    wait_until(lambda: "b1" in _workloads(plane, namespace), timeout=WAIT, interval=0.5)

    def next_admitted():
        workloads = _workloads(plane, namespace)
        if not _finished(workloads["a1"]):
            return None
        return [n for n in ("a2", "b1") if _admitted(workloads[n])] or None

    (first,) = wait_until(next_admitted, timeout=WAIT, interval=0.3)
    return ["a1", first, "b1" if first == "a2" else "a2"]


def test_with_fairness_between_users_bob_who_used_nothing_goes_first(plane):
    assert _admission_order(plane, "afs-on", fair=True) == ["a1", "b1", "a2"]
    # Kueue reports alice's usage on her LocalQueue, read by the team page.
    alice = plane.kubectl(
        "get", "localqueues.kueue.x-k8s.io", user_local_queue_name("afs-on", "alice"),
        "-n", "afs-on-ns", "-o", "json",
    )  # fmt: skip
    status = json.loads(alice.stdout)["status"]["fairSharing"]["admissionFairSharingStatus"]
    # Its value is not checked: Kueue v0.17 was seen reporting 4m, 2m, then 0 GPU within
    # seconds while a1 still ran (only the entry penalty, decaying), the order above
    # still following a1's usage.
    assert "nvidia.com/gpu" in status["consumedResources"] and status["lastUpdate"]


def test_without_it_the_older_job_goes_first(plane):
    assert _admission_order(plane, "afs-off", fair=False) == ["a1", "a2", "b1"]
