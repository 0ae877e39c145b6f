"""Topology levels rendered and diffed: pure functions, expectations written by hand."""

from __future__ import annotations

import copy

from apps.queues import kueue
from apps.queues.reconcile import plan as p

FLAVOR = {
    "name": "b200",
    "node_labels": {"gpu.nvidia.com/class": "b200"},
    "node_taints": [],
    "tolerations": [],
    "topology_levels": [
        {"name": "rack", "node_label": "example.com/rack"},
        {"name": "host", "node_label": "kubernetes.io/hostname"},
    ],
}
OURS = {"app.kubernetes.io/managed-by": "quartermaster"}


def _live(obj: dict) -> dict:
    live = copy.deepcopy(obj)
    live["metadata"]["resourceVersion"] = "5"
    return live


def test_a_flavor_with_levels_renders_a_topology_and_names_it():
    assert kueue.render_topology(FLAVOR) == {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Topology",
        "metadata": {"name": "b200", "labels": OURS},
        "spec": {
            "levels": [{"nodeLabel": "example.com/rack"}, {"nodeLabel": "kubernetes.io/hostname"}]
        },
    }
    assert kueue.render_flavor(FLAVOR)["spec"] == {
        "nodeLabels": {"gpu.nvidia.com/class": "b200"},
        "topologyName": "b200",
    }


def test_a_flavor_without_levels_renders_no_topology():
    plain = {**FLAVOR, "topology_levels": []}
    objects = kueue.render_all(kueue.PolicyState(flavors=[plain]))
    assert [o["kind"] for o in objects] == ["ResourceFlavor"]
    assert "topologyName" not in objects[0]["spec"]


def test_the_topology_is_created_before_the_flavor_that_names_it():
    objects = kueue.render_all(kueue.PolicyState(flavors=[FLAVOR]))
    actions = p.plan(objects, {}, version="v1beta2")
    assert [(a.verb, a.kind) for a in actions] == [
        ("create", "Topology"),
        ("create", "ResourceFlavor"),
    ]


def test_changed_levels_are_blocked_with_the_reason_never_patched():
    old = kueue.render_topology(FLAVOR)
    new = kueue.render_topology({**FLAVOR, "topology_levels": FLAVOR["topology_levels"][:1]})
    (action,) = p.plan([new], {kueue.object_key(old): _live(old)}, version="v1beta2")
    assert (action.verb, action.patch) == (p.BLOCKED, None)
    assert action.message.startswith(
        "Kueue never changes spec.levels of Topology b200 once created"
    )


def test_node_labels_of_a_flavor_with_a_topology_are_blocked_but_taints_patch():
    live = _live(kueue.render_flavor(FLAVOR))
    relabelled = kueue.render_flavor({**FLAVOR, "node_labels": {"a": "b"}})
    (blocked,) = p.plan([relabelled], {kueue.object_key(live): live}, version="v1beta2")
    assert blocked.verb == p.BLOCKED and "spec.nodeLabels" in blocked.message
    taint = {"key": "spot", "effect": "NoSchedule"}
    tainted = kueue.render_flavor({**FLAVOR, "node_taints": [taint]})
    (patched,) = p.plan([tainted], {kueue.object_key(live): live}, version="v1beta2")
    assert patched.verb == p.UPDATE
    assert patched.patch == {"metadata": {"resourceVersion": "5"}, "spec": {"nodeTaints": [taint]}}


def test_a_flavor_without_a_topology_may_gain_one():
    live = _live(kueue.render_flavor({**FLAVOR, "topology_levels": []}))
    (action,) = p.plan(
        [kueue.render_flavor(FLAVOR)], {kueue.object_key(live): live}, version="v1beta2"
    )
    assert action.verb == p.UPDATE
    assert action.patch["spec"] == {"topologyName": "b200"}


def test_a_topology_a_remaining_flavor_names_is_kept_not_deleted():
    topology, flavor = _live(kueue.render_topology(FLAVOR)), _live(kueue.render_flavor(FLAVOR))
    observed = {kueue.object_key(topology): topology, kueue.object_key(flavor): flavor}
    actions = p.plan([kueue.render_flavor(FLAVOR)], observed, version="v1beta2")
    assert [(a.verb, a.kind) for a in actions] == [
        ("blocked", "Topology"),
        ("unchanged", "ResourceFlavor"),
    ]
    # With its flavor gone too, both are deleted: the flavor first (reverse creation order).
    actions = p.plan([], observed, version="v1beta2")
    assert [(a.verb, a.kind) for a in actions] == [
        ("delete", "ResourceFlavor"),
        ("delete", "Topology"),
    ]
