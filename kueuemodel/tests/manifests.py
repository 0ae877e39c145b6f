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
    name: str,
    queue: str,
    *,
    cpu: int = 1,
    seconds: int = 10,
    priority: int = 0,
    namespace: str | None = None,
    requests: dict[str, str] | None = None,
    created: str | None = None,
) -> dict:
    """A one-pod Workload of ``queue`` (in the namespace of that name unless given),
    requesting ``requests`` (default: ``cpu`` cores)."""
    wanted = requests if requests is not None else {"cpu": str(cpu)}
    container = {"name": "c", "resources": {"requests": wanted}}
    metadata = {
        "name": name,
        "namespace": namespace or queue,
        "annotations": {"simcluster/duration": f"{seconds}s"},
    }
    if created is not None:
        metadata["creationTimestamp"] = created
    return {
        "kind": "Workload",
        "metadata": metadata,
        "spec": {
            "queueName": queue,
            "priority": priority,
            "podSets": [
                {"name": "main", "count": 1, "template": {"spec": {"containers": [container]}}}
            ],
        },
    }
