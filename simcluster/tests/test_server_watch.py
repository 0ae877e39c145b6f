"""Watches through the Python client and raw HTTP: initial state, resume, 410, bookmarks."""

from __future__ import annotations

import json
import threading
import urllib.request

import pytest
from kubernetes import client, watch

from simcluster.server.operations import Target, WriteOptions
from simcluster.server.resources import by_key
from simcluster.server.store import Store
from testkit.kube_objects import KUEUE, make_workload
from testkit.waiting import wait_until


def collect(stream, count: int) -> list[dict]:
    events = []
    for event in stream:
        events.append(event)
        if len(events) == count:
            break
    return events


def test_watch_starts_with_the_current_objects(custom):
    custom.create_namespaced_custom_object(*KUEUE, "default", "workloads", make_workload("w1"))
    w = watch.Watch()
    events = collect(
        w.stream(
            custom.list_namespaced_custom_object, *KUEUE, "default", "workloads", timeout_seconds=5
        ),
        1,
    )
    w.stop()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "w1")]


def test_watch_streams_changes_made_while_watching(custom):
    listed = custom.list_namespaced_custom_object(*KUEUE, "default", "workloads")
    rv = listed["metadata"]["resourceVersion"]
    seen: list[tuple[str, str]] = []
    w = watch.Watch()

    def consume() -> None:
        for event in w.stream(
            custom.list_namespaced_custom_object,
            *KUEUE,
            "default",
            "workloads",
            resource_version=rv,
            timeout_seconds=10,
        ):
            seen.append((event["type"], event["object"]["metadata"]["name"]))
            if len(seen) == 3:
                w.stop()

    thread = threading.Thread(target=consume)
    thread.start()
    custom.create_namespaced_custom_object(*KUEUE, "default", "workloads", make_workload("w1"))
    custom.patch_namespaced_custom_object(
        *KUEUE, "default", "workloads", "w1", {"spec": {"active": False}}
    )
    custom.delete_namespaced_custom_object(*KUEUE, "default", "workloads", "w1")
    thread.join(timeout=15)
    assert seen == [("ADDED", "w1"), ("MODIFIED", "w1"), ("DELETED", "w1")]


def test_watch_resumes_from_a_resource_version(core):
    core.create_namespaced_config_map("default", {"metadata": {"name": "a"}})
    rv = core.read_namespaced_config_map("a", "default").metadata.resource_version
    core.create_namespaced_config_map("default", {"metadata": {"name": "b"}})
    core.patch_namespaced_config_map("a", "default", {"data": {"k": "v"}})
    w = watch.Watch()
    events = collect(
        w.stream(
            core.list_namespaced_config_map, "default", resource_version=rv, timeout_seconds=5
        ),
        2,
    )
    w.stop()
    assert [(e["type"], e["object"].metadata.name) for e in events] == [
        ("ADDED", "b"),
        ("MODIFIED", "a"),
    ]


def test_label_selected_watch_sees_objects_leave_the_selection(core):
    core.create_namespaced_config_map(
        "default", {"metadata": {"name": "a", "labels": {"team": "x"}}}
    )
    rv = core.read_namespaced_config_map("a", "default").metadata.resource_version
    core.patch_namespaced_config_map("a", "default", {"metadata": {"labels": {"team": "y"}}})
    w = watch.Watch()
    events = collect(
        w.stream(
            core.list_namespaced_config_map,
            "default",
            label_selector="team=x",
            resource_version=rv,
            timeout_seconds=5,
        ),
        1,
    )
    w.stop()
    assert events[0]["type"] == "DELETED"


def test_watch_from_a_compacted_resource_version_is_gone(tmp_path):
    from simcluster.server import SimServer
    from simcluster.server.operations import Cluster

    server = SimServer(
        cluster=Cluster(Store(history_size=3)), kubeconfig_out=tmp_path / "kc"
    ).start()
    try:
        namespaces = by_key("", "configmaps")
        for index in range(6):
            body = {"metadata": {"name": f"cm{index}"}}
            server.cluster.create(Target(namespaces, "v1", "default"), body, WriteOptions())
        url = f"{server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1"
        with urllib.request.urlopen(url, timeout=10) as response:
            event = json.loads(response.readline())
        assert event["type"] == "ERROR"
        assert event["object"]["code"] == 410
        assert event["object"]["reason"] == "Expired"
        assert "too old resource version" in event["object"]["message"]
    finally:
        server.stop()


def test_python_client_raises_410_when_it_cannot_resume(tmp_path):
    from kubernetes import config

    from simcluster.server import SimServer
    from simcluster.server.operations import Cluster

    server = SimServer(
        cluster=Cluster(Store(history_size=2)), kubeconfig_out=tmp_path / "kc"
    ).start()
    try:
        core = client.CoreV1Api(config.new_client_from_config(str(server.kubeconfig_path)))
        for index in range(5):
            core.create_namespaced_config_map("default", {"metadata": {"name": f"cm{index}"}})
        with pytest.raises(client.ApiException) as caught:
            for _event in watch.Watch().stream(
                core.list_namespaced_config_map, "default", resource_version="1", timeout_seconds=5
            ):
                pass
        assert caught.value.status == 410
    finally:
        server.stop()


def test_timeout_seconds_ends_the_stream(sim):
    url = f"{sim.url}/api/v1/namespaces?watch=true&timeoutSeconds=1"
    with urllib.request.urlopen(url, timeout=10) as response:
        lines = response.read().decode().splitlines()
    assert len(lines) == 4  # the four default namespaces, then the stream ends


def test_bookmarks_carry_the_resource_version(sim, core):
    rv = core.list_namespace().metadata.resource_version
    url = f"{sim.url}/api/v1/namespaces?watch=1&allowWatchBookmarks=true&resourceVersion={rv}&timeoutSeconds=5"
    with urllib.request.urlopen(url, timeout=10) as response:
        event = json.loads(response.readline())
    assert event["type"] == "BOOKMARK"
    assert event["object"]["kind"] == "Namespace"
    assert int(event["object"]["metadata"]["resourceVersion"]) >= int(rv)


def test_watch_on_all_namespaces_and_pods(core, sim):
    core.create_namespace({"metadata": {"name": "x"}})
    seen: list[str] = []
    w = watch.Watch()

    def consume() -> None:
        for event in w.stream(core.list_pod_for_all_namespaces, timeout_seconds=10):
            seen.append(event["object"].metadata.namespace)
            if len(seen) == 2:
                w.stop()

    thread = threading.Thread(target=consume)
    thread.start()
    for namespace in ("default", "x"):
        core.create_namespaced_pod(
            namespace,
            {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        )
    thread.join(timeout=15)
    wait_until(lambda: len(seen) == 2)
    assert sorted(seen) == ["default", "x"]
