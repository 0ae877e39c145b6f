"""Patch types and server-side apply through the Python client."""

from __future__ import annotations

import pytest
from kubernetes import client

from testkit.kube_objects import KUEUE, make_cq, status_of

APPLY = "application/apply-patch+yaml"
JSON_PATCH = "application/json-patch+json"
POD = {
    "metadata": {"name": "p", "labels": {"app": "x"}},
    "spec": {
        "containers": [
            {
                "name": "main",
                "image": "a:1",
                "env": [{"name": "A", "value": "1"}],
                "ports": [{"containerPort": 80}],
            },
            {"name": "side", "image": "b:1"},
        ]
    },
}


def test_merge_patch_merges_maps_and_deletes_with_null(custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    patched = custom.patch_cluster_custom_object(
        *KUEUE,
        "clusterqueues",
        "cq",
        {"metadata": {"labels": {"a": "1"}}, "spec": {"cohortName": None}},
    )
    assert patched["metadata"]["labels"] == {"a": "1"}
    assert "cohortName" not in patched["spec"]


def test_json_patch_applies_operations_in_order(custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    ops = [
        {"op": "test", "path": "/spec/stopPolicy", "value": "None"},
        {"op": "replace", "path": "/spec/stopPolicy", "value": "Hold"},
        {"op": "add", "path": "/metadata/labels", "value": {"team": "a"}},
        {"op": "remove", "path": "/spec/cohortName"},
    ]
    patched = custom.patch_cluster_custom_object(
        *KUEUE, "clusterqueues", "cq", ops, _content_type=JSON_PATCH
    )
    assert patched["spec"]["stopPolicy"] == "Hold"
    assert patched["metadata"]["labels"] == {"team": "a"}


def test_a_failing_json_patch_test_is_rejected(custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    ops = [{"op": "test", "path": "/spec/stopPolicy", "value": "Hold"}]
    with pytest.raises(client.ApiException) as caught:
        custom.patch_cluster_custom_object(
            *KUEUE, "clusterqueues", "cq", ops, _content_type=JSON_PATCH
        )
    assert caught.value.status == 422


def test_a_list_sent_as_merge_patch_is_a_bad_request(custom):
    # CustomObjectsApi sends merge-patch unless told otherwise, even for a list.
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    with pytest.raises(client.ApiException) as caught:
        custom.patch_cluster_custom_object(
            *KUEUE, "clusterqueues", "cq", [{"op": "remove", "path": "/spec"}]
        )
    assert caught.value.status == 400


def test_strategic_merge_patch_merges_containers_by_name(core):
    core.create_namespaced_pod("default", POD)
    patch = {
        "spec": {
            "containers": [{"name": "main", "image": "a:2", "env": [{"name": "B", "value": "2"}]}]
        }
    }
    pod = core.patch_namespaced_pod("p", "default", patch)
    main, side = pod.spec.containers
    assert (main.name, main.image, side.name) == ("main", "a:2", "side")
    assert [(e.name, e.value) for e in main.env] == [("A", "1"), ("B", "2")]
    assert main.ports[0].container_port == 80


def test_strategic_merge_patch_delete_directive(core):
    core.create_namespaced_pod("default", POD)
    patch = {"spec": {"containers": [{"name": "side", "$patch": "delete"}]}}
    pod = core.patch_namespaced_pod("p", "default", patch)
    assert [c.name for c in pod.spec.containers] == ["main"]


def test_strategic_merge_patch_is_refused_for_custom_resources(api_client, custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    with pytest.raises(client.ApiException) as caught:
        custom.patch_cluster_custom_object(
            *KUEUE,
            "clusterqueues",
            "cq",
            {"spec": {"stopPolicy": "Hold"}},
            _content_type="application/strategic-merge-patch+json",
        )
    assert caught.value.status == 415


def test_a_patch_with_a_stale_resource_version_conflicts(custom):
    cq = custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    custom.patch_cluster_custom_object(
        *KUEUE, "clusterqueues", "cq", {"spec": {"stopPolicy": "Hold"}}
    )
    stale = {
        "metadata": {"resourceVersion": cq["metadata"]["resourceVersion"]},
        "spec": {"stopPolicy": "None"},
    }
    with pytest.raises(client.ApiException) as caught:
        custom.patch_cluster_custom_object(*KUEUE, "clusterqueues", "cq", stale)
    assert caught.value.status == 409


def apply(custom, body, manager: str, force: bool = False):
    """Server-side apply, returning the object (re-read after a create, which
    answers 201 — a status CustomObjectsApi.patch_* turns into None)."""
    name = body["metadata"]["name"]
    result = custom.patch_cluster_custom_object(
        *KUEUE, "clusterqueues", name, body, field_manager=manager, force=force, _content_type=APPLY
    )
    return result or custom.get_cluster_custom_object(*KUEUE, "clusterqueues", name)


def managers(obj) -> dict[str, str]:
    return {entry["manager"]: entry["operation"] for entry in obj["metadata"]["managedFields"]}


def test_server_side_apply_creates_and_records_the_manager(custom):
    created = apply(custom, make_cq("cq"), "portal")
    assert created["spec"]["queueingStrategy"] == "BestEffortFIFO"
    assert managers(created) == {"portal": "Apply"}


def test_server_side_apply_removes_fields_the_manager_stopped_applying(custom):
    body = make_cq("cq")
    body["metadata"]["labels"] = {"a": "1", "b": "2"}
    apply(custom, body, "portal")
    body["metadata"]["labels"] = {"a": "1"}
    del body["spec"]["cohortName"]
    result = apply(custom, body, "portal")
    assert result["metadata"]["labels"] == {"a": "1"}
    assert "cohortName" not in result["spec"]


def test_server_side_apply_keeps_fields_owned_by_others(custom):
    apply(custom, make_cq("cq"), "portal")
    custom.patch_cluster_custom_object(
        *KUEUE, "clusterqueues", "cq", {"metadata": {"labels": {"ops": "yes"}}}, field_manager="ops"
    )
    result = apply(custom, make_cq("cq"), "portal")
    assert result["metadata"]["labels"] == {"ops": "yes"}
    assert managers(result) == {"portal": "Apply", "ops": "Update"}


def test_server_side_apply_conflicts_with_another_manager(custom):
    apply(custom, make_cq("cq", stopPolicy="Hold"), "portal")
    with pytest.raises(client.ApiException) as caught:
        apply(custom, make_cq("cq", stopPolicy="HoldAndDrain"), "rival")
    status = status_of(caught.value)
    assert caught.value.status == 409 and status["reason"] == "Conflict"
    assert status["details"]["causes"] == [
        {
            "reason": "FieldManagerConflict",
            "message": 'conflict with "portal" using kueue.x-k8s.io/v1beta2',
            "field": ".spec.stopPolicy",
        }
    ]


def test_forced_apply_takes_ownership(custom):
    apply(custom, make_cq("cq", stopPolicy="Hold"), "portal")
    result = apply(custom, make_cq("cq", stopPolicy="HoldAndDrain"), "rival", force=True)
    assert result["spec"]["stopPolicy"] == "HoldAndDrain"
    with pytest.raises(client.ApiException):
        apply(custom, make_cq("cq", stopPolicy="Hold"), "portal")


def test_applying_the_same_value_shares_ownership_without_conflict(custom):
    apply(custom, make_cq("cq", stopPolicy="Hold"), "portal")
    result = apply(custom, make_cq("cq", stopPolicy="Hold"), "rival")
    assert set(managers(result)) == {"portal", "rival"}


def test_an_unchanged_apply_is_a_noop(custom):
    first = apply(custom, make_cq("cq"), "portal")
    second = apply(custom, make_cq("cq"), "portal")
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_apply_requires_a_field_manager(custom):
    with pytest.raises(client.ApiException) as caught:
        custom.patch_cluster_custom_object(
            *KUEUE, "clusterqueues", "cq", make_cq("cq"), _content_type=APPLY
        )
    assert caught.value.status == 422
