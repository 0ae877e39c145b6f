"""One stored object serves kueue.x-k8s.io v1beta1 and v1beta2."""

from __future__ import annotations

from testkit.kube_objects import KUEUE, make_cq, make_workload

V1BETA1 = ("kueue.x-k8s.io", "v1beta1")


def test_a_v1beta2_cohort_name_reads_as_v1beta1_cohort(custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq", cohort="research"))
    old = custom.get_cluster_custom_object(*V1BETA1, "clusterqueues", "cq")
    assert old["apiVersion"] == "kueue.x-k8s.io/v1beta1"
    assert old["spec"]["cohort"] == "research"
    assert "cohortName" not in old["spec"]


def test_a_v1beta1_write_is_stored_as_cohort_name(custom):
    body = make_cq("cq", cohort=None)
    body["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    body["spec"]["cohort"] = "research"
    custom.create_cluster_custom_object(*V1BETA1, "clusterqueues", body)
    new = custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "cq")
    assert new["spec"]["cohortName"] == "research"
    assert "cohort" not in new["spec"]


def test_v1beta1_updates_keep_working_on_the_same_object(custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq", cohort="a"))
    old = custom.get_cluster_custom_object(*V1BETA1, "clusterqueues", "cq")
    old["spec"]["cohort"] = "b"
    custom.replace_cluster_custom_object(*V1BETA1, "clusterqueues", "cq", old)
    assert (
        custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "cq")["spec"]["cohortName"] == "b"
    )


def test_v1beta1_fungibility_aliases_are_normalised(custom):
    body = make_cq("cq", cohort=None, flavorFungibility={"whenCanBorrow": "Borrow"})
    body["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    custom.create_cluster_custom_object(*V1BETA1, "clusterqueues", body)
    spec = custom.get_cluster_custom_object(*KUEUE, "clusterqueues", "cq")["spec"]
    assert spec["flavorFungibility"]["whenCanBorrow"] == "MayStopSearch"


def test_workload_priority_class_reference_converts(custom):
    body = make_workload("w")
    body["spec"]["priorityClassRef"] = {
        "group": "kueue.x-k8s.io",
        "kind": "WorkloadPriorityClass",
        "name": "high",
    }
    body["spec"]["priority"] = 100
    custom.create_namespaced_custom_object(*KUEUE, "default", "workloads", body)
    old = custom.get_namespaced_custom_object(*V1BETA1, "default", "workloads", "w")
    assert old["spec"]["priorityClassName"] == "high"
    assert old["spec"]["priorityClassSource"] == "kueue.x-k8s.io/workloadpriorityclass"


def test_lists_and_watches_convert_too(custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq", cohort="x"))
    items = custom.list_cluster_custom_object(*V1BETA1, "clusterqueues")["items"]
    assert [item["spec"]["cohort"] for item in items] == ["x"]


def test_a_topology_assignment_reads_as_v1beta1_domains_and_back():
    from simcluster.server import conversion, resources

    workloads = resources.by_key("kueue.x-k8s.io", "workloads")
    # Two slices: one node by itself, and two hosts of rack r1 compressed (roots h1, h2
    # with prefix "n-": n-h1 and n-h2, 2 and 1 pods).
    stored = {
        "spec": {},
        "status": {"admission": {"podSetAssignments": [{"name": "main", "topologyAssignment": {
            "levels": ["example.com/rack", "kubernetes.io/hostname"],
            "slices": [
                {"domainCount": 1, "podCounts": {"universal": 3},
                 "valuesPerLevel": [{"universal": "r0"}, {"universal": "n-h0"}]},
                {"domainCount": 2, "podCounts": {"individual": [2, 1]},
                 "valuesPerLevel": [{"universal": "r1"},
                                    {"individual": {"prefix": "n-", "roots": ["h1", "h2"]}}]},
            ],
        }}]}},
    }  # fmt: skip
    old = conversion.from_storage(workloads, "v1beta1", stored)
    (psa,) = old["status"]["admission"]["podSetAssignments"]
    assert psa["topologyAssignment"] == {
        "levels": ["example.com/rack", "kubernetes.io/hostname"],
        "domains": [
            {"values": ["r0", "n-h0"], "count": 3},
            {"values": ["r1", "n-h1"], "count": 2},
            {"values": ["r1", "n-h2"], "count": 1},
        ],
    }
    back = conversion.to_storage(workloads, "v1beta1", old)
    (psa,) = back["status"]["admission"]["podSetAssignments"]
    assert [s["podCounts"]["universal"] for s in psa["topologyAssignment"]["slices"]] == [3, 2, 1]
    assert psa["topologyAssignment"]["slices"][2]["valuesPerLevel"] == [
        {"universal": "r1"},
        {"universal": "n-h2"},
    ]
