"""Visibility positions, fragmentation, quiet ticks and kubectl against the live cluster."""

from __future__ import annotations

import json
import urllib.request

from testkit.kube_objects import KUEUE
from testkit.live_cluster import (
    NS,
    admitted,
    advance,
    condition,
    gpu_job,
    job_pods,
    setup_cluster,
    workload_of,
)
from testkit.waiting import wait_until


def pending_names(base: str, path: str) -> list[tuple[str, int, int]]:
    with urllib.request.urlopen(base + path, timeout=10) as response:
        data = json.loads(response.read())
    return [
        (
            i["metadata"]["name"].split("-")[1],
            i["positionInClusterQueue"],
            i["positionInLocalQueue"],
        )
        for i in data["items"]
    ]


def test_it_lists_pending_workloads_in_queue_order(live, hooks, core, batch, custom, sim):
    setup_cluster(core, custom, quota=8, preemption={"withinClusterQueue": "Never"})
    batch.create_namespaced_job(NS, gpu_job("running", priority="low"))
    admitted(custom, "running")
    for name, priority in (("second", "low"), ("third", "low"), ("boss", "high")):
        batch.create_namespaced_job(NS, gpu_job(name, priority=priority))
        advance(hooks, 1)
    wait_until(lambda: all(workload_of(custom, n) for n in ("second", "third", "boss")))
    base = "/apis/visibility.kueue.x-k8s.io/v1beta2"

    by_cq = pending_names(sim.url, f"{base}/clusterqueues/cq/pendingworkloads")
    by_lq = pending_names(sim.url, f"{base}/namespaces/{NS}/localqueues/lq/pendingworkloads")

    # Higher priority first, then older first.
    assert by_cq == [("boss", 0, 0), ("second", 1, 1), ("third", 2, 2)]
    assert by_lq == by_cq


def test_it_admits_but_cannot_place_a_fragmented_gang(live, hooks, core, batch, custom):
    setup_cluster(core, custom, nodes=2, gpus=8, quota=16)
    batch.create_namespaced_job(NS, gpu_job("half", gpus=4))
    admitted(custom, "half")
    batch.create_namespaced_job(NS, gpu_job("wide", gpus=6, pods=2))

    workload = admitted(custom, "wide")

    pods = wait_until(lambda: len(p := job_pods(core, "wide")) == 2 and p)
    assert {p.status.phase for p in pods} == {"Pending"}
    scheduled = [c for c in pods[0].status.conditions if c.type == "PodScheduled"][0]
    assert scheduled.reason == "Unschedulable"
    assert scheduled.message.startswith("0/2 nodes are available: no node has")
    assert condition(workload, "PodsReady")["status"] == "False"

    batch.delete_namespaced_job("half", NS, propagation_policy="Background")

    # Both pods of the gang start, though not necessarily in the same status write.
    def both_running():
        running = [p for p in job_pods(core, "wide") if p.status.phase == "Running"]
        return len(running) == 2 and running

    assert len(wait_until(both_running)) == 2


def test_a_quiet_tick_writes_nothing(live, hooks, core, batch, custom):
    setup_cluster(core, custom)
    batch.create_namespaced_job(NS, gpu_job("busy", duration="3h"))
    admitted(custom, "busy")
    advance(hooks, 60)
    hooks.call("POST", "counters/reset")

    advance(hooks, 0)
    advance(hooks, 30)

    _, counters = hooks.call("GET", "counters")
    assert counters["controller"]["writes"] == 0, counters["controller"]["requests"]


def test_kubectl_lists_live_workloads(live, hooks, core, batch, custom, kubectl):
    setup_cluster(core, custom)
    batch.create_namespaced_job(NS, gpu_job("seen", duration="1h"))
    name = admitted(custom, "seen")["metadata"]["name"]

    table = kubectl("get", "workloads", "-A")
    listing = kubectl("get", "workloads.kueue.x-k8s.io", "-A", "-o", "json")

    assert table.returncode == 0, table.stderr
    assert name in table.stdout and NS in table.stdout
    items = json.loads(listing.stdout)["items"]
    assert [c["type"] for c in items[0]["status"]["conditions"]][:2] == [
        "QuotaReserved",
        "Admitted",
    ]
    cq = custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "cq")
    assert cq["status"]["admittedWorkloads"] == 1
