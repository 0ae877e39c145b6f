"""CRUD through the official Python client: objects, metadata, Status errors."""

from __future__ import annotations

import pytest
from kubernetes import client

from testkit.kube_objects import KUEUE, make_cq, make_lq, make_workload, status_of


def test_it_creates_and_reads_back_a_cluster_queue_with_server_metadata(custom):
    created = custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    got = custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "cq")
    meta = got["metadata"]
    assert meta["uid"] == created["metadata"]["uid"]
    assert meta["generation"] == 1
    assert int(meta["resourceVersion"]) > 0
    assert meta["creationTimestamp"].endswith("Z")
    assert got["kind"] == "ClusterQueue" and got["apiVersion"] == "kueue.x-k8s.io/v1beta2"


def test_it_applies_crd_defaults(custom):
    spec = custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))["spec"]
    assert spec["queueingStrategy"] == "BestEffortFIFO"
    assert spec["stopPolicy"] == "None"
    assert spec["flavorFungibility"] == {
        "whenCanBorrow": "MayStopSearch",
        "whenCanPreempt": "TryNextFlavor",
    }
    assert spec["preemption"] == {
        "reclaimWithinCohort": "Never",
        "withinClusterQueue": "Never",
        "borrowWithinCohort": {"policy": "Never"},
    }


def test_it_answers_not_found_with_a_status(custom):
    with pytest.raises(client.ApiException) as caught:
        custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "nope")
    status = status_of(caught.value)
    assert caught.value.status == 404
    assert status["kind"] == "Status" and status["status"] == "Failure"
    assert status["reason"] == "NotFound"
    assert status["message"] == 'clusterqueues.kueue.x-k8s.io "nope" not found'
    assert status["details"] == {"name": "nope", "group": "kueue.x-k8s.io", "kind": "clusterqueues"}


def test_it_refuses_duplicates_with_already_exists(custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    with pytest.raises(client.ApiException) as caught:
        custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    assert caught.value.status == 409
    assert status_of(caught.value)["reason"] == "AlreadyExists"


def test_it_rejects_an_update_with_a_stale_resource_version(custom):
    first = custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    first["spec"]["stopPolicy"] = "Hold"
    custom.replace_cluster_custom_object(*KUEUE, "clusterqueues", "cq", first)
    first["spec"]["stopPolicy"] = "HoldAndDrain"
    with pytest.raises(client.ApiException) as caught:
        custom.replace_cluster_custom_object(*KUEUE, "clusterqueues", "cq", first)
    status = status_of(caught.value)
    assert caught.value.status == 409 and status["reason"] == "Conflict"
    assert "the object has been modified" in status["message"]


def test_it_bumps_generation_only_on_spec_changes(custom):
    cq = custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    cq["metadata"]["labels"] = {"team": "a"}
    cq = custom.replace_cluster_custom_object(*KUEUE, "clusterqueues", "cq", cq)
    assert cq["metadata"]["generation"] == 1
    cq["spec"]["stopPolicy"] = "Hold"
    cq = custom.replace_cluster_custom_object(*KUEUE, "clusterqueues", "cq", cq)
    assert cq["metadata"]["generation"] == 2


def test_a_noop_update_keeps_the_resource_version(custom):
    cq = custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    again = custom.replace_cluster_custom_object(*KUEUE, "clusterqueues", "cq", cq)
    assert again["metadata"]["resourceVersion"] == cq["metadata"]["resourceVersion"]


def test_status_is_only_written_through_the_status_subresource(custom):
    cq = custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    cq["status"] = {"pendingWorkloads": 3}
    cq = custom.replace_cluster_custom_object(*KUEUE, "clusterqueues", "cq", cq)
    assert "status" not in cq
    cq["status"] = {"pendingWorkloads": 3}
    cq["spec"]["stopPolicy"] = "Hold"
    cq = custom.replace_cluster_custom_object_status(*KUEUE, "clusterqueues", "cq", cq)
    assert cq["status"] == {"pendingWorkloads": 3}
    assert cq["spec"]["stopPolicy"] == "None"


def test_generate_name_makes_a_unique_name(core):
    body = {"metadata": {"generateName": "cm-"}, "data": {"a": "b"}}
    first = core.create_namespaced_config_map("default", body)
    second = core.create_namespaced_config_map("default", body)
    assert first.metadata.name.startswith("cm-") and len(first.metadata.name) == 8
    assert first.metadata.name != second.metadata.name


def test_namespaced_objects_need_an_existing_namespace(custom):
    with pytest.raises(client.ApiException) as caught:
        custom.create_namespaced_custom_object(
            *KUEUE, "missing", "localqueues", make_lq("lq", "missing")
        )
    assert caught.value.status == 404
    assert status_of(caught.value)["message"] == 'namespaces "missing" not found'


def test_finalizers_hold_deletion_until_removed(custom):
    cq = make_cq("cq")
    cq["metadata"]["finalizers"] = ["kueue.x-k8s.io/resource-in-use"]
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", cq)
    custom.delete_cluster_custom_object(*KUEUE, "clusterqueues", "cq")
    held = custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "cq")
    assert held["metadata"]["deletionTimestamp"]
    patch = {"metadata": {"finalizers": None}}
    custom.patch_cluster_custom_object(*KUEUE, "clusterqueues", "cq", patch)
    with pytest.raises(client.ApiException) as caught:
        custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "cq")
    assert caught.value.status == 404


def test_deleting_a_namespace_deletes_its_objects(core, custom):
    core.create_namespace({"metadata": {"name": "team"}})
    custom.create_namespaced_custom_object(*KUEUE, "team", "localqueues", make_lq("lq", "team"))
    core.delete_namespace("team")
    assert custom.list_namespaced_custom_object(*KUEUE, "team", "localqueues")["items"] == []
    assert "team" not in [ns.metadata.name for ns in core.list_namespace().items]


def test_it_lists_with_label_selectors(core):
    for name, labels in [("a", {"tier": "gpu", "team": "x"}), ("b", {"tier": "cpu"}), ("c", {})]:
        core.create_namespaced_config_map("default", {"metadata": {"name": name, "labels": labels}})

    def names(selector: str) -> list[str]:
        return [
            cm.metadata.name
            for cm in core.list_namespaced_config_map("default", label_selector=selector).items
        ]

    assert names("tier=gpu") == ["a"]
    assert names("tier!=gpu") == ["b", "c"]
    assert names("tier in (gpu,cpu)") == ["a", "b"]
    assert names("tier notin (gpu)") == ["b", "c"]
    assert names("team") == ["a"]
    assert names("!team") == ["b", "c"]
    assert names("tier,!team") == ["b"]


def test_it_lists_with_field_selectors_and_across_namespaces(core, custom):
    core.create_namespace({"metadata": {"name": "other"}})
    for namespace in ("default", "other"):
        custom.create_namespaced_custom_object(*KUEUE, namespace, "workloads", make_workload("w"))
    everywhere = custom.list_cluster_custom_object(*KUEUE, "workloads")["items"]
    assert [w["metadata"]["namespace"] for w in everywhere] == ["default", "other"]
    only = custom.list_cluster_custom_object(
        *KUEUE, "workloads", field_selector="metadata.namespace=other"
    )
    assert [w["metadata"]["namespace"] for w in only["items"]] == ["other"]


def test_it_pages_lists_with_limit_and_continue(core):
    for index in range(5):
        core.create_namespaced_config_map("default", {"metadata": {"name": f"cm{index}"}})
    first = core.list_namespaced_config_map("default", limit=2)
    second = core.list_namespaced_config_map("default", limit=2, _continue=first.metadata._continue)
    third = core.list_namespaced_config_map("default", limit=2, _continue=second.metadata._continue)
    names = [cm.metadata.name for page in (first, second, third) for cm in page.items]
    assert names == [f"cm{i}" for i in range(5)]
    assert third.metadata._continue is None


def test_dry_run_changes_nothing(custom):
    created = custom.create_cluster_custom_object(
        *KUEUE, "clusterqueues", make_cq("cq"), dry_run="All"
    )
    assert created["metadata"]["name"] == "cq"
    assert custom.list_cluster_custom_object(*KUEUE, "clusterqueues")["items"] == []


def test_jobs_and_pods_round_trip_through_typed_apis(core, batch):
    container = {"name": "c", "image": "busybox"}
    job = {
        "metadata": {"name": "j"},
        "spec": {"template": {"spec": {"containers": [container], "restartPolicy": "Never"}}},
    }
    batch.create_namespaced_job("default", job)
    assert batch.read_namespaced_job("j", "default").spec.template.spec.restart_policy == "Never"
    core.create_namespaced_pod(
        "default", {"metadata": {"name": "p"}, "spec": {"containers": [container]}}
    )
    pod = core.read_namespaced_pod("p", "default")
    pod.status = client.V1PodStatus(phase="Running")
    core.replace_namespaced_pod_status("p", "default", pod)
    assert core.read_namespaced_pod("p", "default").status.phase == "Running"


def test_deleting_an_owner_deletes_its_dependents(custom, batch):
    container = {"name": "c", "image": "busybox"}
    job = batch.create_namespaced_job(
        "default",
        {
            "metadata": {"name": "j"},
            "spec": {"template": {"spec": {"containers": [container], "restartPolicy": "Never"}}},
        },
    )
    workload = make_workload("job-j-abcde")
    workload["metadata"]["ownerReferences"] = [
        {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": job.metadata.uid}
    ]
    custom.create_namespaced_custom_object(*KUEUE, "default", "workloads", workload)
    batch.delete_namespaced_job("j", "default", propagation_policy="Background")
    assert custom.list_namespaced_custom_object(*KUEUE, "default", "workloads")["items"] == []
