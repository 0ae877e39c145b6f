"""The final snapshot: written when the store changed since the last save, skipped when
the last save already holds everything, and a round trip restores the same objects."""

import json

from simcluster.server import snapshot
from simcluster.server.store import Store

PODS = ("", "pods")


def pod(name: str) -> dict:
    return {"metadata": {"namespace": "team-a", "name": name}, "spec": {"nodeName": "n1"}}


def test_stop_saves_only_what_the_last_save_does_not_hold(tmp_path):
    path = tmp_path / "state.json"
    store = Store()
    store.put(PODS, pod("a"))
    saver = snapshot.PeriodicSaver(store, path, interval=3600)
    saver.save_now()
    path.write_text("left alone")  # a marker: a skipped save leaves it
    saver.stop()
    assert path.read_text() == "left alone"

    store.put(PODS, pod("b"))  # resourceVersion 2
    saver.stop()
    saved = json.loads(path.read_text())
    assert saved["format"] == 1 and saved["resourceVersion"] == 2
    assert sorted(o["object"]["metadata"]["name"] for o in saved["objects"]) == ["a", "b"]


def test_a_saved_store_loads_back_the_same(tmp_path):
    path = tmp_path / "state.json"
    store = Store()
    store.put(PODS, pod("a"))
    store.put(PODS, pod("a"))  # modified: resourceVersion 2
    assert snapshot.save(store, path) == 2
    again = Store()
    assert snapshot.load(again, path)
    assert again.resource_version == 2
    assert again.get(PODS, ("team-a", "a"))["metadata"]["resourceVersion"] == "2"
