"""Discovery, version, OpenAPI stubs and the visibility API."""

from __future__ import annotations

import json
import urllib.request

import pytest
from kubernetes import client

from testkit.kube_objects import KUEUE, make_cq, make_lq, make_workload


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_version_looks_like_kubernetes(api_client):
    info = client.VersionApi(api_client).get_code()
    assert (info.major, info.minor) == ("1", "32")


def test_groups_list_kueue_with_v1beta2_preferred(sim):
    _, groups = get(f"{sim.url}/apis")
    kueue = next(g for g in groups["groups"] if g["name"] == "kueue.x-k8s.io")
    assert kueue["preferredVersion"]["version"] == "v1beta2"
    assert [v["version"] for v in kueue["versions"]] == ["v1beta2", "v1beta1"]


def test_resource_lists_describe_kinds_scopes_and_subresources(sim):
    _, listing = get(f"{sim.url}/apis/kueue.x-k8s.io/v1beta2")
    by_name = {r["name"]: r for r in listing["resources"]}
    assert by_name["localqueues"]["namespaced"] is True
    assert by_name["localqueues"]["shortNames"] == ["queue", "queues", "lq"]
    assert by_name["clusterqueues"]["singularName"] == "clusterqueue"
    assert "watch" in by_name["workloads"]["verbs"]
    assert by_name["workloads/status"]["verbs"] == ["get", "patch", "update"]
    _, core = get(f"{sim.url}/api/v1")
    assert {"namespaces", "nodes", "pods", "pods/status", "services", "events"} <= {
        r["name"] for r in core["resources"]
    }


def test_unknown_paths_answer_a_not_found_status(sim):
    code, status = get(f"{sim.url}/apis/example.com/v1/widgets")
    assert code == 404 and status["kind"] == "Status" and status["reason"] == "NotFound"
    assert get(f"{sim.url}/openapi/v2")[0] == 404


def test_openapi_v3_advertises_field_validation_for_each_kind(sim):
    _, index = get(f"{sim.url}/openapi/v3")
    url = index["paths"]["apis/kueue.x-k8s.io/v1beta2"]["serverRelativeURL"]
    _, document = get(sim.url + url)
    operation = document["paths"]["/apis/kueue.x-k8s.io/v1beta2/clusterqueues/{name}"]["patch"]
    assert operation["x-kubernetes-group-version-kind"]["kind"] == "ClusterQueue"
    assert "fieldValidation" in [p["name"] for p in operation["parameters"]]


def test_pending_workloads_are_empty_until_an_engine_provides_them(sim, custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    code, summary = get(
        f"{sim.url}/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/pendingworkloads"
    )
    assert code == 200
    assert summary == {
        "kind": "PendingWorkloadsSummary",
        "apiVersion": "visibility.kueue.x-k8s.io/v1beta2",
        "metadata": {},
        "items": [],
    }
    assert (
        get(
            f"{sim.url}/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/nope/pendingworkloads"
        )[0]
        == 404
    )


def test_the_pending_provider_hook_feeds_both_endpoints(sim, custom):
    custom.create_cluster_custom_object(*KUEUE, "clusterqueues", make_cq("cq"))
    custom.create_namespaced_custom_object(*KUEUE, "default", "localqueues", make_lq("lq"))
    custom.create_namespaced_custom_object(*KUEUE, "default", "workloads", make_workload("w"))

    def provider(cluster, cluster_queue):
        assert cluster_queue == "cq"
        meta = {"name": "w", "namespace": "default"}
        other = {"name": "x", "namespace": "elsewhere"}
        return [
            {"metadata": other, "priority": 9, "localQueueName": "lq", "positionInClusterQueue": 0},
            {"metadata": meta, "priority": 0, "localQueueName": "lq", "positionInClusterQueue": 1},
        ]

    sim.pending_provider = provider
    base = f"{sim.url}/apis/visibility.kueue.x-k8s.io/v1beta2"
    assert len(get(f"{base}/clusterqueues/cq/pendingworkloads")[1]["items"]) == 2
    assert (
        get(f"{base}/clusterqueues/cq/pendingworkloads?limit=1&offset=1")[1]["items"][0][
            "metadata"
        ]["name"]
        == "w"
    )
    items = get(f"{base}/namespaces/default/localqueues/lq/pendingworkloads")[1]["items"]
    assert [
        (i["metadata"]["name"], i["positionInClusterQueue"], i["positionInLocalQueue"])
        for i in items
    ] == [("w", 1, 0)]


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/livez"])
def test_health_endpoints(sim, path):
    assert get(sim.url + path)[0] == 200
