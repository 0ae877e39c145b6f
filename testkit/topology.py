"""A topology flavor's Kueue objects and labelled nodes, on either cluster (TAS tests)."""

from __future__ import annotations

from testkit.nodes import add_node

KUEUE = "kueue.x-k8s.io/v1beta2"
BLOCK, RACK, HOST = "example.com/block", "example.com/rack", "kubernetes.io/hostname"


def add_racks(cluster, racks: dict[str, str], node_labels: dict, block: str = "b1") -> None:
    """One 8-GPU node per host of ``racks`` (host → rack), all in ``block``."""
    for host, rack in racks.items():
        add_node(cluster, host, labels={**node_labels, BLOCK: block, RACK: rack, HOST: host})


def create_tas_queue(
    cluster, *, flavor: str, node_labels: dict, queue: str, namespace: str, gpus: int
) -> None:
    """A Topology (block → rack → host) named after ``flavor``, the flavor naming it, a
    ClusterQueue of ``gpus`` on it, and LocalQueue ``main`` in ``namespace``."""
    quota = [{"name": "nvidia.com/gpu", "nominalQuota": gpus}]
    objects = [
        {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": flavor},
         "spec": {"levels": [{"nodeLabel": BLOCK}, {"nodeLabel": RACK}, {"nodeLabel": HOST}]}},
        {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": flavor},
         "spec": {"nodeLabels": node_labels, "topologyName": flavor}},
        {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": queue},
         "spec": {"namespaceSelector": {},
                  "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
                                      "flavors": [{"name": flavor, "resources": quota}]}]}},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {"apiVersion": KUEUE, "kind": "LocalQueue",
         "metadata": {"name": "main", "namespace": namespace},
         "spec": {"clusterQueue": queue}},
    ]  # fmt: skip
    for obj in objects:
        cluster.create(obj)
