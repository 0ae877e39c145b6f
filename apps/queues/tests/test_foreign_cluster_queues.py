"""A ClusterQueue on the cluster that the portal does not manage reserves capacity too.

Ground truth by hand: a100 has 32 GPUs; vision, nlp and speech hold 8 each; a
hand-made ClusterQueue ``handmade`` (no managed-by label) holds 4 a100.
"""

from __future__ import annotations

import pytest

from apps.queues.reconcile.observe import ref
from apps.queues.reconcile.run import reconcile
from core.errors import InvalidInput
from testkit.capacity import (
    raise_vision_to,
    unallocated_in_api,
    unallocated_on_page,
)
from testkit.factories import snapshot

HANDMADE = {
    "apiVersion": "kueue.x-k8s.io/v1beta2",
    "kind": "ClusterQueue",
    "metadata": {"name": "handmade", "labels": {}},
    "spec": {
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": ["nvidia.com/gpu"],
                "flavors": [
                    {"name": "a100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "4"}]}
                ],
            }
        ],
    },
}


def test_a_foreign_cluster_queue_is_counted_and_warned_about(cluster, client, admin, three_teams):
    cluster.create(HANDMADE)
    reconcile(trigger="manual")
    client.force_login(admin)

    # 32 − (8 + 8 + 8 teams + 4 handmade) = 4
    assert unallocated_on_page(client) == "4"
    assert unallocated_in_api(admin) == "4"
    page = client.get("/").content.decode()
    assert "ClusterQueues the portal does not manage reserve capacity" in page
    assert "handmade (a100/nvidia.com/gpu: 4)" in page

    with pytest.raises(InvalidInput) as refused:
        raise_vision_to(three_teams[0], admin, "13")  # 13 + 16 + 4 = 33 > 32
    assert "e.g. nominal 12 fits" in " ".join(refused.value.errors["quotas[0].nominal"])


def test_a_foreign_cluster_queue_that_is_gone_stops_counting(cluster, client, admin, three_teams):
    cluster.create(HANDMADE)
    reconcile(trigger="manual")
    with cluster.client() as kube:
        kube.delete(ref("ClusterQueue", "v1beta2"), "handmade")
    reconcile(trigger="manual")
    client.force_login(admin)

    # 32 − 24 = 8, and no warning
    assert unallocated_on_page(client) == "8"
    assert "does not manage" not in client.get("/").content.decode()
    raise_vision_to(three_teams[0], admin, "16")  # 16 + 16 = 32, exactly full
    assert snapshot(three_teams[0])["quotas"][0]["nominal"] == "16"
