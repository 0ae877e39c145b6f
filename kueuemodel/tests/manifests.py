"""Plain manifests for engine tests: one ClusterQueue with its LocalQueue of the
same name (namespace = name), and one-pod Workloads with a run time."""

from __future__ import annotations


def resource_flavor() -> dict:
    return {"kind": "ResourceFlavor", "metadata": {"name": "rf"}}


def queue_objects(name: str, cpu: int, within: str = "Never", **spec) -> list[dict]:
    quota = {"name": "cpu", "nominalQuota": cpu, **spec.pop("quota", {})}
    cq = {
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {
            **spec,
            "namespaceSelector": {},
            "resourceGroups": [
                {"coveredResources": ["cpu"], "flavors": [{"name": "rf", "resources": [quota]}]}
            ],
            "preemption": {"withinClusterQueue": within},
        },
    }
    lq = {
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": name},
        "spec": {"clusterQueue": name},
    }
    return [cq, lq]


def workload_object(
    name: str, queue: str, *, cpu: int = 1, seconds: int = 10, priority: int = 0
) -> dict:
    container = {"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}
    return {
        "kind": "Workload",
        "metadata": {
            "name": name,
            "namespace": queue,
            "annotations": {"simcluster/duration": f"{seconds}s"},
        },
        "spec": {
            "queueName": queue,
            "priority": priority,
            "podSets": [
                {"name": "main", "count": 1, "template": {"spec": {"containers": [container]}}}
            ],
        },
    }
