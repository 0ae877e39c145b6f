"""Admission validation of Kueue objects: 422 Invalid with causes naming the field."""

from __future__ import annotations

import copy

import pytest
from kubernetes import client

from testkit.kube_objects import KUEUE, make_cq, make_lq, make_workload, status_of


def rejected(call, *args) -> dict:
    with pytest.raises(client.ApiException) as caught:
        call(*args)
    assert caught.value.status == 422, caught.value.body
    status = status_of(caught.value)
    assert status["reason"] == "Invalid"
    return status


def fields(status: dict) -> list[str]:
    return [cause["field"] for cause in status["details"]["causes"]]


def create_cq(custom, body):
    return custom.create_cluster_custom_object(*KUEUE, "clusterqueues", body)


def cq_with_resource(**resource) -> dict:
    body = make_cq("cq")
    body["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0].update(resource)
    return body


def test_lending_limit_above_nominal_quota_names_the_field(custom):
    status = rejected(create_cq, custom, cq_with_resource(lendingLimit=9))
    assert fields(status) == ["spec.resourceGroups[0].flavors[0].resources[0].lendingLimit"]
    assert status["message"].startswith('ClusterQueue.kueue.x-k8s.io "cq" is invalid: ')
    assert (
        status["details"]["kind"] == "ClusterQueue"
        and status["details"]["group"] == "kueue.x-k8s.io"
    )


def test_lending_and_borrowing_limits_need_a_cohort(custom):
    body = cq_with_resource(lendingLimit=1)
    del body["spec"]["cohortName"]
    assert "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit" in fields(
        rejected(create_cq, custom, body)
    )
    body = cq_with_resource(borrowingLimit=1)
    del body["spec"]["cohortName"]
    assert fields(rejected(create_cq, custom, body)) == ["spec"]


def test_negative_quantities_are_rejected(custom):
    status = rejected(create_cq, custom, cq_with_resource(nominalQuota="-1"))
    assert fields(status) == ["spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"]


def test_malformed_quantities_are_rejected(custom):
    status = rejected(create_cq, custom, cq_with_resource(nominalQuota="lots"))
    assert status["details"]["causes"][0]["reason"] == "FieldValueInvalid"


def test_a_quantity_the_pattern_admits_but_no_one_can_compute_with_is_rejected(custom):
    status = rejected(create_cq, custom, cq_with_resource(nominalQuota="1e9999999"))
    cause = status["details"]["causes"][0]
    assert cause["field"] == "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"
    assert "exponent from -9 to 18" in cause["message"]


def test_resources_must_follow_covered_resources_in_order(custom):
    body = make_cq("cq")
    resources = body["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    resources.reverse()
    status = rejected(create_cq, custom, body)
    assert "spec.resourceGroups[0].flavors[0].resources[0].name" in fields(status)


def test_flavors_must_cover_every_resource(custom):
    body = make_cq("cq")
    body["spec"]["resourceGroups"][0]["flavors"][0]["resources"].pop()
    assert fields(rejected(create_cq, custom, body)) == ["spec.resourceGroups[0]"]


def test_a_flavor_or_resource_may_be_in_only_one_group(custom):
    body = make_cq("cq")
    body["spec"]["resourceGroups"].append(copy.deepcopy(body["spec"]["resourceGroups"][0]))
    status = rejected(create_cq, custom, body)
    assert "spec.resourceGroups[1].coveredResources[0]" in fields(status)
    assert "spec.resourceGroups[1].flavors[0].name" in fields(status)


def test_fair_sharing_weight_must_be_zero_or_above_a_tiny_bound(custom):
    custom.create_cluster_custom_object(
        *KUEUE, "clusterqueues", make_cq("zero", fairSharing={"weight": 0})
    )
    status = rejected(create_cq, custom, make_cq("cq", fairSharing={"weight": "1n"}))
    assert fields(status) == ["spec.fairSharing.weight"]


def test_preference_needs_try_next_flavor_for_both_policies(custom):
    body = make_cq("cq", flavorFungibility={"preference": "PreemptionOverBorrowing"})
    assert fields(rejected(create_cq, custom, body)) == ["spec.flavorFungibility"]
    ok = make_cq(
        "ok",
        flavorFungibility={
            "whenCanBorrow": "TryNextFlavor",
            "preference": "PreemptionOverBorrowing",
        },
    )
    create_cq(custom, ok)


def test_reclaim_never_with_borrow_within_cohort_is_rejected(custom):
    body = make_cq("cq", preemption={"borrowWithinCohort": {"policy": "LowerPriority"}})
    assert fields(rejected(create_cq, custom, body)) == ["spec.preemption"]


def test_enums_list_the_supported_values(custom):
    status = rejected(create_cq, custom, make_cq("cq", queueingStrategy="Random"))
    cause = status["details"]["causes"][0]
    assert cause["field"] == "spec.queueingStrategy" and cause["reason"] == "FieldValueNotSupported"
    assert '"StrictFIFO", "BestEffortFIFO"' in cause["message"]


def test_names_must_be_dns_subdomains(custom):
    status = rejected(create_cq, custom, make_cq("Team_A"))
    assert fields(status) == ["metadata.name"]
    assert fields(rejected(create_cq, custom, make_cq("cq", cohort="Bad Cohort"))) == [
        "spec.cohortName"
    ]


def test_local_queue_cluster_queue_is_immutable(custom):
    custom.create_namespaced_custom_object(*KUEUE, "default", "localqueues", make_lq("lq"))
    patch = {"spec": {"clusterQueue": "other"}}
    status = rejected(
        custom.patch_namespaced_custom_object, *KUEUE, "default", "localqueues", "lq", patch
    )
    assert fields(status) == ["spec.clusterQueue"]


def test_cohort_limits_need_a_parent(custom):
    cohort = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Cohort",
        "metadata": {"name": "root"},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {
                            "name": "f",
                            "resources": [{"name": "cpu", "nominalQuota": 4, "borrowingLimit": 1}],
                        }
                    ],
                }
            ]
        },
    }
    status = rejected(custom.create_cluster_custom_object, *KUEUE, "cohorts", cohort)
    assert fields(status) == ["spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit"]
    cohort["spec"]["parentName"] = "top"
    custom.create_cluster_custom_object(*KUEUE, "cohorts", cohort)


def test_workload_priority_class_value_is_a_required_int32(custom):
    body = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "WorkloadPriorityClass",
        "metadata": {"name": "high"},
    }
    assert fields(
        rejected(custom.create_cluster_custom_object, *KUEUE, "workloadpriorityclasses", body)
    ) == ["value"]
    body["value"] = 2**31
    assert fields(
        rejected(custom.create_cluster_custom_object, *KUEUE, "workloadpriorityclasses", body)
    ) == ["value"]
    body["value"] = "100"
    assert fields(
        rejected(custom.create_cluster_custom_object, *KUEUE, "workloadpriorityclasses", body)
    ) == ["value"]
    body["value"] = 1000
    custom.create_cluster_custom_object(*KUEUE, "workloadpriorityclasses", body)


def test_workloads_may_not_request_pods(custom):
    body = make_workload("w")
    body["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"][
        "pods"
    ] = "1"
    status = rejected(custom.create_namespaced_custom_object, *KUEUE, "default", "workloads", body)
    assert fields(status) == [
        "spec.podSets[0].template.spec.containers[0].resources.requests[pods]"
    ]


def test_workload_defaults_are_applied(custom):
    body = make_workload("w")
    del body["spec"]["podSets"][0]["name"], body["spec"]["podSets"][0]["count"]
    spec = custom.create_namespaced_custom_object(*KUEUE, "default", "workloads", body)["spec"]
    assert spec["active"] is True
    assert (spec["podSets"][0]["name"], spec["podSets"][0]["count"]) == ("main", 1)


def test_resource_flavor_taint_effects_are_checked(custom):
    body = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": "f"},
        "spec": {"nodeTaints": [{"key": "a", "effect": "Sometimes"}]},
    }
    assert fields(
        rejected(custom.create_cluster_custom_object, *KUEUE, "resourceflavors", body)
    ) == ["spec.nodeTaints"]


def test_every_error_is_reported_at_once(custom):
    body = make_cq("cq", stopPolicy="Never", queueingStrategy="Random")
    assert sorted(fields(rejected(create_cq, custom, body))) == [
        "spec.queueingStrategy",
        "spec.stopPolicy",
    ]
