"""Test hooks: request counters and fault injection under /simcluster/."""

from __future__ import annotations

import pytest
from kubernetes import client

from testkit.kube_objects import KUEUE, make_cq


def test_health_reports_ok(hooks):
    code, body = hooks.call("GET", "healthz")
    assert code == 200 and body["status"] == "ok"


def test_counters_count_requests_by_verb_and_resource(hooks, custom):
    hooks.call("POST", "counters/reset")
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "cq")
    custom.list_cluster_custom_object(*KUEUE, "clusterqueues")
    _, counters = hooks.call("GET", "counters")
    assert counters["byVerb"] == {"create": 1, "get": 1, "list": 1}
    assert counters["writes"] == 1
    assert {
        "verb": "create",
        "group": "kueue.x-k8s.io",
        "resource": "clusterqueues",
        "subresource": "",
        "count": 1,
    } in counters["requests"]


def test_a_read_only_pass_makes_zero_writes(hooks, custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    hooks.call("POST", "counters/reset")
    custom.list_cluster_custom_object(*KUEUE, "clusterqueues")
    assert hooks.call("GET", "counters")[1]["writes"] == 0


def test_a_fault_fails_the_next_matching_requests(hooks, custom):
    code, fault = hooks.call(
        "POST", "faults", {"verb": "create", "resource": "clusterqueues", "code": 500, "count": 2}
    )
    assert code == 201 and fault["id"] > 0
    for _ in range(2):
        with pytest.raises(client.ApiException) as caught:
            custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
        assert caught.value.status == 500
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    assert hooks.call("GET", "faults")[1]["faults"] == []


def test_faults_only_hit_matching_requests(hooks, custom):
    hooks.call(
        "POST",
        "faults",
        {"verb": "patch", "resource": "clusterqueues", "code": 409, "message": "try again"},
    )
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    with pytest.raises(client.ApiException) as caught:
        custom.patch_cluster_custom_object(
            *KUEUE, "clusterqueues", "cq", {"spec": {"stopPolicy": "Hold"}}
        )
    assert caught.value.status == 409
    assert '"reason": "Conflict"' in caught.value.body and "try again" in caught.value.body


def test_a_forbidden_fault_looks_like_rbac(hooks, core):
    hooks.call("POST", "faults", {"verb": "list", "resource": "pods", "code": 403, "count": 0})
    for _ in range(3):
        with pytest.raises(client.ApiException) as caught:
            core.list_namespaced_pod("default")
        assert caught.value.status == 403
    hooks.call("DELETE", "faults")
    core.list_namespaced_pod("default")


def test_latency_faults_delay_without_failing(hooks, custom):
    hooks.call(
        "POST", "faults", {"verb": "list", "resource": "clusterqueues", "latencySeconds": 0.05}
    )
    assert custom.list_cluster_custom_object(*KUEUE, "clusterqueues")["items"] == []


def test_bad_fault_specs_are_rejected(hooks):
    assert hooks.call("POST", "faults", {"verb": "get"})[0] == 400
    assert hooks.call("POST", "faults", {"verb": "get", "code": 500, "colour": "red"})[0] == 400


def test_snapshot_hook_needs_a_configured_file(hooks):
    assert hooks.call("POST", "snapshot")[0] == 409
