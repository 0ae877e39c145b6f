"""Notebooks (single-replica StatefulSets) and plain pods are gated until admitted."""

from __future__ import annotations

from testkit.kube_objects import KUEUE
from testkit.live_cluster import NS, advance, is_true, setup_cluster
from testkit.waiting import wait_until

GATE = "kueue.x-k8s.io/admission"


def notebook(name: str, priority: str = "low") -> dict:
    labels = {"kueue.x-k8s.io/queue-name": "lq", "kueue.x-k8s.io/priority-class": priority}
    container = {
        "name": "jupyter",
        "image": "jupyter",
        "resources": {"requests": {"nvidia.com/gpu": "8"}},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "replicas": 1,
            "serviceName": name,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [container]},
            },
        },
    }


def create(api_client, body: dict) -> None:
    from kubernetes import client

    client.AppsV1Api(api_client).create_namespaced_stateful_set(NS, body)


def pod(core, name):
    return next((p for p in core.list_namespaced_pod(NS).items if p.metadata.name == name), None)


def phase(p) -> str | None:
    return p.status.phase if p is not None and p.status is not None else None


def gates(p) -> list[str]:
    return [g.name for g in p.spec.scheduling_gates or []]


def workload(custom, prefix):
    items = custom.list_namespaced_custom_object(*KUEUE, NS, "workloads")["items"]
    return next((w for w in items if w["metadata"]["name"].startswith(prefix)), None)


def test_it_keeps_a_notebook_gated_until_admitted(live, hooks, core, custom, api_client):
    setup_cluster(core, custom, nodes=1, quota=8)
    create(api_client, notebook("first"))
    wait_until(lambda: phase(pod(core, "first-0")) == "Running")
    assert pod(core, "first-0").spec.node_name == "gpu-0"

    create(api_client, notebook("second"))

    waiting = wait_until(
        lambda: (p := pod(core, "second-0")) and GATE in gates(p) and p.status and p
    )
    assert waiting.status.phase == "Pending"
    assert waiting.spec.node_name is None
    held = wait_until(lambda: workload(custom, "statefulset-second-"))
    assert not is_true(held, "QuotaReserved")

    from kubernetes import client

    client.AppsV1Api(api_client).patch_namespaced_stateful_set(
        "first", NS, {"spec": {"replicas": 0}}
    )

    on_hold = wait_until(
        lambda: (
            (w := workload(custom, "statefulset-first-")) and not is_true(w, "QuotaReserved") and w
        )
    )
    assert [
        c["reason"] for c in on_hold["status"]["conditions"] if c["type"] == "QuotaReserved"
    ] == ["OnHold"]
    # The parked second notebook is requeued one requeue batch (1 s) after the release.
    advance(hooks, 1)
    running = wait_until(lambda: phase(p := pod(core, "second-0")) == "Running" and p)
    assert gates(running) == []
    assert pod(core, "first-0") is None


def test_it_recreates_a_preempted_notebook_gated(live, hooks, core, custom, api_client):
    setup_cluster(core, custom, nodes=1, quota=8)
    create(api_client, notebook("nb", "low"))
    wait_until(lambda: phase(pod(core, "nb-0")) == "Running")

    create(api_client, notebook("vip", "high"))
    # The evicted notebook keeps its quota until its pod has stopped (a second).
    wait_until(lambda: is_true(workload(custom, "statefulset-nb-"), "Evicted"))
    advance(hooks, 1)

    wait_until(lambda: phase(pod(core, "vip-0")) == "Running")
    # The recreated pod's status is written just after it is created: wait for both.
    again = wait_until(lambda: (p := pod(core, "nb-0")) and GATE in gates(p) and p.status and p)
    assert again.status.phase == "Pending"
    assert is_true(workload(custom, "statefulset-nb-"), "Requeued")


def test_it_gates_a_plain_pod_and_admits_it(live, hooks, core, custom):
    setup_cluster(core, custom, nodes=1, quota=8)
    container = {"name": "c", "image": "cuda", "resources": {"requests": {"nvidia.com/gpu": "2"}}}
    body = {
        "metadata": {"name": "solo", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
        "spec": {"containers": [container]},
    }

    core.create_namespaced_pod(NS, body)

    running = wait_until(lambda: phase(p := pod(core, "solo")) == "Running" and p)
    assert gates(running) == []
    assert running.spec.node_name == "gpu-0"
    assert running.metadata.labels["kueue.x-k8s.io/managed"] == "true"
    assert is_true(workload(custom, "pod-solo-"), "Admitted")
