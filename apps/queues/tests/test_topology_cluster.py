"""A flavor's topology levels reach the cluster as a Kueue Topology named after it."""

from __future__ import annotations

import pytest

from apps.queues import services
from apps.queues.models import ResourceFlavor
from apps.queues.reconcile.plan import BLOCKED
from apps.queues.reconcile.run import compute_plan, reconcile
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db

LABELS = {"gpu.nvidia.com/class": "b200"}
LEVELS = [
    {"name": "block", "node_label": "example.com/block"},
    {"name": "rack", "node_label": "example.com/rack"},
    {"name": "host", "node_label": "kubernetes.io/hostname"},
]


def _topology_flavor(admin) -> ResourceFlavor:
    return services.save_flavor(
        name="b200",
        capacity={"nvidia.com/gpu": "32"},
        node_labels=LABELS,
        topology_levels=LEVELS,
        actor=admin,
    )


def _plan(cluster) -> dict:
    with cluster.client() as kube:
        return {action.key: action for action in compute_plan(kube)}


def _names(cluster, kind: str) -> set[str]:
    return {obj["metadata"]["name"] for obj in cluster.list(kind)}


@pytest.mark.both_clusters
def test_it_creates_the_topology_and_the_flavor_naming_it_then_deletes_both(cluster, admin):
    _topology_flavor(admin)
    summary = reconcile()
    assert summary.errors == []
    levels = cluster.get("Topology", "b200")["spec"]["levels"]
    assert levels == [
        {"nodeLabel": "example.com/block"},
        {"nodeLabel": "example.com/rack"},
        {"nodeLabel": "kubernetes.io/hostname"},
    ]
    assert cluster.get("ResourceFlavor", "b200")["spec"]["topologyName"] == "b200"
    cluster.reset_counters()
    assert reconcile().errors == [] and cluster.writes() == 0
    # No flavor-deleting service exists; a row removed by hand is the case left.
    ResourceFlavor.objects.filter(name="b200").delete()
    assert reconcile().errors == []

    def both_gone() -> bool:
        # On the real cluster Kueue's finalizer holds the flavor a moment, and the plan
        # keeps a Topology a flavor still names: the next reconcile removes it.
        assert reconcile().errors == []
        return not {"b200"} & (_names(cluster, "Topology") | _names(cluster, "ResourceFlavor"))

    assert wait_until(both_gone, timeout=60, interval=1)


def test_a_level_changed_behind_the_service_is_blocked_not_patched_every_run(cluster, admin):
    _topology_flavor(admin)
    reconcile()
    # A database edit that bypasses save_flavor (which refuses it): Kueue would refuse
    # the patch on every run, so the plan blocks it with the reason instead.
    ResourceFlavor.objects.filter(name="b200").update(topology_levels=LEVELS[1:])
    actions = _plan(cluster)
    topology = actions[("Topology", "", "b200")]
    assert topology.verb == BLOCKED and topology.patch is None
    assert "Kueue never changes spec.levels of Topology b200" in topology.message
    cluster.reset_counters()
    reconcile()
    assert cluster.writes() == 0
    assert len(cluster.get("Topology", "b200")["spec"]["levels"]) == 3


def test_removing_the_levels_behind_the_service_leaves_the_flavor_as_it_is(cluster, admin):
    _topology_flavor(admin)
    reconcile()
    ResourceFlavor.objects.filter(name="b200").update(topology_levels=[])
    actions = _plan(cluster)
    flavor = actions[("ResourceFlavor", "", "b200")]
    assert flavor.verb == BLOCKED
    assert "spec.topologyName of ResourceFlavor b200 once spec.topologyName" in flavor.message
    cluster.reset_counters()
    reconcile()
    assert cluster.writes() == 0
    assert cluster.get("ResourceFlavor", "b200")["spec"]["topologyName"] == "b200"
