"""Topology-aware placement on both clusters: the portal's rendered Job, asking for
"same rack" or "same host", placed (or not) by the real Kueue v0.17.0 (TAS, KWOK nodes,
the real kube-scheduler) and by the simulated cluster's admission model.

The nodes, worked out by hand: one block ``b1`` of two racks ``r1``, ``r2`` of two
hosts each, 8 GPUs a host: 4 × 8 = 32 GPUs, 16 per rack, 8 per host. The queue's quota
is 32, so quota never decides; only the topology does.

* 2 pods × 8 GPUs, required in one rack: a rack has 2 hosts × 8 = 16 >= 16, so Kueue
  admits it with both pods in one rack (one pod per host, 8 + 8).
* 2 pods × 8 GPUs, required on one host: a host has 8 < 16, so it never fits, whatever
  else runs; Kueue leaves it pending, saying why in terms of topology.
"""

from __future__ import annotations

import json

import pytest

from apps.jobs import manifests
from testkit.topology import HOST, RACK, add_racks, create_tas_queue
from testkit.waiting import wait_until

KUEUE = "kueue.x-k8s.io/v1beta2"
P = "tas-"
FLAVOR, TIER, NAMESPACE = f"{P}b200", f"{P}standard", f"{P}team"
# host → rack: r1 holds h1, h2; r2 holds h3, h4.
RACKS = {f"{P}h1": "r1", f"{P}h2": "r1", f"{P}h3": "r2", f"{P}h4": "r2"}
WAIT = 120  # seconds: generous, for a loaded 2-core machine


def _setup(cluster) -> None:
    """The nodes, then the Kueue objects (the ``sim`` fixture's two unlabelled nodes
    match no flavor here)."""
    node_labels = {"gpu": FLAVOR}
    add_racks(cluster, RACKS, node_labels)
    tier = {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": TIER}}
    cluster.create({**tier, "value": 100})
    create_tas_queue(
        cluster,
        flavor=FLAVOR,
        node_labels=node_labels,
        queue=P + "q",
        namespace=NAMESPACE,
        gpus=32,
    )


def _job(name: str, label: str) -> dict:
    """The portal's rendering of a 2 × 8 GPU job required in one domain of ``label``."""
    spec = manifests.JobSpec(
        name=name,
        namespace=NAMESPACE,
        team="tas",
        owner="alice",
        queue="main",
        priority_class=TIER,
        image="trainer",
        command=("train",),
        gpu_resource="nvidia.com/gpu",
        gpus_per_pod=8,
        pods=2,
        sim_duration_seconds=7200,
        node_selector={"gpu": FLAVOR},
        topology_label=label,
        topology_mode="required",
    )
    return manifests.render_job(spec)


def _workload(cluster, job: str, version: str = "v1beta2") -> dict | None:
    for workload in cluster.list("Workload", version):
        owners = workload["metadata"].get("ownerReferences") or [{}]
        if workload["metadata"].get("namespace") == NAMESPACE and owners[0].get("name") == job:
            return workload
    return None


def _condition(workload: dict | None, kind: str) -> dict:
    conditions = ((workload or {}).get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c["type"] == kind), {})


def _story(cluster) -> str:
    return json.dumps(
        [
            (w["metadata"]["name"], (w.get("status") or {}).get("conditions"))
            for w in cluster.list("Workload")
            if w["metadata"].get("namespace") == NAMESPACE
        ],
        indent=1,
    )


def _settle(cluster, predicate):
    try:
        return wait_until(predicate, WAIT, interval=0.5)
    except pytest.fail.Exception:
        pytest.fail(f"not reached within {WAIT}s; what Kueue did:\n{_story(cluster)}")


def _pods_nodes(cluster, job: str) -> list[str]:
    done = cluster.kubectl(
        "get", "pods", "-n", NAMESPACE, "-l", f"batch.kubernetes.io/job-name={job}", "-o", "json"
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return sorted(p["spec"].get("nodeName") or "" for p in json.loads(done.stdout)["items"])


@pytest.mark.both_clusters
def test_same_rack_is_admitted_in_one_rack_and_same_host_never_fits(sim):
    cluster = sim  # the simulated cluster with its engine, or the real control plane
    _setup(cluster)
    created = cluster.kubectl(
        "create",
        "--validate=false",  # the simulated API server serves no OpenAPI for batch/v1
        "-f",
        "-",
        stdin=json.dumps(
            {"apiVersion": "v1", "kind": "List",
             "items": [_job(f"{P}host", HOST), _job(f"{P}rack", RACK)]}
        ),
    )  # fmt: skip
    assert created.returncode == 0, created.stderr

    # Same rack: admitted, two pods in one rack.
    _settle(
        cluster,
        lambda: _condition(_workload(cluster, f"{P}rack"), "Admitted").get("status") == "True",
    )
    # Kueue's topologyAssignment, read through v1beta1 (domains) on both clusters.
    (assignment,) = _workload(cluster, f"{P}rack", "v1beta1")["status"]["admission"][
        "podSetAssignments"
    ]
    topology = assignment["topologyAssignment"]
    assert topology["levels"][-1] == HOST, topology
    hosts = {d["values"][-1]: d["count"] for d in topology["domains"]}
    assert sum(hosts.values()) == 2, topology
    assert len({RACKS[h] for h in hosts}) == 1, topology
    # Both pods bound inside one rack (on the real cluster, by the kube-scheduler
    # following Kueue's assignment).
    nodes = _settle(cluster, lambda: (n := _pods_nodes(cluster, f"{P}rack")) and all(n) and n)
    assert len(nodes) == 2 and len({RACKS[n] for n in nodes}) == 1, nodes

    # Same host: 16 GPUs on one 8-GPU host never fits; Kueue says so, in topology terms.
    def told_why() -> str:
        reserved = _condition(_workload(cluster, f"{P}host"), "QuotaReserved")
        said = f"{reserved.get('reason', '')}: {reserved.get('message', '')}"
        return said if reserved.get("status") == "False" and "topology" in said.lower() else ""

    said = _settle(cluster, told_why)
    assert _condition(_workload(cluster, f"{P}host"), "Admitted").get("status") != "True", said
    assert _pods_nodes(cluster, f"{P}host") == []
