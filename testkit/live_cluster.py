"""Builders for the live-controller tests: a small GPU cluster and jobs, over the real API."""

from __future__ import annotations

from typing import Any

from kubernetes import client

from testkit.kube_objects import KUEUE
from testkit.sim_hooks import Hooks
from testkit.waiting import wait_until

Obj = dict[str, Any]
NS = "team-a"


def advance(hooks: Hooks, seconds: float) -> dict[str, Any]:
    code, body = hooks.call("POST", "clock/advance", {"seconds": seconds})
    assert code == 200, body
    return body


def setup_cluster(
    core: client.CoreV1Api,
    custom: client.CustomObjectsApi,
    *,
    nodes: int = 2,
    gpus: int = 8,
    quota: int = 16,
    preemption: Obj | None = None,
) -> None:
    core.create_namespace({"metadata": {"name": NS}})
    for i in range(nodes):
        name = f"gpu-{i}"
        core.create_node({"metadata": {"name": name, "labels": {"gpu.nvidia.com/class": "h100"}}})
        resources = {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": str(gpus)}
        core.patch_node_status(name, {"status": {"allocatable": resources, "capacity": resources}})
    flavor = {
        "metadata": {"name": "h100"},
        "spec": {"nodeLabels": {"gpu.nvidia.com/class": "h100"}},
    }
    custom.create_cluster_custom_object(
        *KUEUE, "resourceflavors", {"kind": "ResourceFlavor", **flavor}
    )
    for name, value in (("low", 10), ("high", 1000)):
        body = {"kind": "WorkloadPriorityClass", "metadata": {"name": name}, "value": value}
        custom.create_cluster_custom_object(*KUEUE, "workloadpriorityclasses", body)
    cq_spec = {
        "namespaceSelector": {},
        "preemption": preemption or {"withinClusterQueue": "LowerPriority"},
        "resourceGroups": [
            {
                "coveredResources": ["nvidia.com/gpu"],
                "flavors": [
                    {
                        "name": "h100",
                        "resources": [{"name": "nvidia.com/gpu", "nominalQuota": quota}],
                    }
                ],
            }
        ],
    }
    cq = {"kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": cq_spec}
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", cq)
    lq = {"kind": "LocalQueue", "metadata": {"name": "lq"}, "spec": {"clusterQueue": "cq"}}
    custom.create_namespaced_custom_object(*KUEUE, NS, "localqueues", lq)


def gpu_job(
    name: str,
    *,
    gpus: int = 8,
    pods: int = 1,
    duration: str | None = None,
    priority: str | None = None,
    annotations: dict[str, str] | None = None,
) -> Obj:
    labels = {"kueue.x-k8s.io/queue-name": "lq"}
    if priority:
        labels["kueue.x-k8s.io/priority-class"] = priority
    notes = dict(annotations or {})
    if duration:
        notes["simcluster/duration"] = duration
    container = {
        "name": "trainer",
        "image": "pytorch",
        # A real API server refuses extended resources without a limit equal to the request.
        "resources": {
            "requests": {"nvidia.com/gpu": str(gpus)},
            "limits": {"nvidia.com/gpu": str(gpus)},
        },
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "labels": labels, "annotations": notes},
        "spec": {
            "parallelism": pods,
            "completions": pods,
            "suspend": True,
            "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
        },
    }


def workload_of(custom: client.CustomObjectsApi, job: str) -> Obj | None:
    items = custom.list_namespaced_custom_object(*KUEUE, NS, "workloads")["items"]
    mine = [w for w in items if w["metadata"]["ownerReferences"][0]["name"] == job]
    return mine[0] if mine else None


def condition(obj: Obj | None, kind: str) -> Obj | None:
    for item in ((obj or {}).get("status") or {}).get("conditions") or ():
        if item["type"] == kind:
            return item
    return None


def is_true(obj: Obj | None, kind: str) -> bool:
    found = condition(obj, kind)
    return bool(found and found["status"] == "True")


def admitted(custom: client.CustomObjectsApi, job: str) -> Obj:
    return wait_until(lambda: _when(workload_of(custom, job), "Admitted"))


def _when(obj: Obj | None, kind: str) -> Obj | None:
    return obj if is_true(obj, kind) else None


def job_pods(core: client.CoreV1Api, job: str) -> list[Any]:
    return core.list_namespaced_pod(NS, label_selector=f"job-name={job}").items


def events_for(core: client.CoreV1Api, name: str) -> list[Any]:
    items = core.list_namespaced_event(NS).items
    return [e for e in items if e.involved_object.name == name]
