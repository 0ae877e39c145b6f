"""GPU nodes added through the Kubernetes API, on either cluster."""

from __future__ import annotations


def add_node(
    cluster, name: str, gpus: int = 8, labels: dict | None = None, devices: dict | None = None
) -> None:
    """A Ready node with 8 GPUs (``nvidia.com/gpu``), or the ``devices`` given."""
    from apps.jobs.cluster import ResourceRef

    node_ref = ResourceRef("", "v1", "nodes", "Node", False)
    resources = {"cpu": "128", "memory": "1Ti", "pods": "110"}
    resources.update(devices or {"nvidia.com/gpu": str(gpus)})
    # KWOK keeps annotated nodes Ready on the real control plane; the simulator ignores it.
    meta = {"name": name, "labels": labels or {}, "annotations": {"kwok.x-k8s.io/node": "fake"}}
    with cluster.client() as kube:
        kube.create(node_ref, {"apiVersion": "v1", "kind": "Node", "metadata": meta})
        kube._call(
            "PATCH",
            node_ref,
            "patch",
            node_ref.path("", name) + "/status",
            body={"status": {"capacity": resources, "allocatable": resources}},
            content_type="application/merge-patch+json",
        )
