"""UIDs and generated names: random by default, one fixed sequence when seeded."""

from __future__ import annotations

import uuid

from simcluster.server.lifecycle import SeededIds
from simcluster.server.operations import Cluster, Target, WriteOptions
from simcluster.server.resources import by_key


def _create_two(cluster: Cluster) -> list[tuple[str, str]]:
    namespaces = Target(by_key("", "namespaces"), "v1")
    made = []
    for _ in range(2):
        body = {"metadata": {"generateName": "team-"}}
        meta = cluster.create(namespaces, body, WriteOptions()).obj["metadata"]
        made.append((meta["uid"], meta["name"]))
    return made


def test_a_seeded_cluster_hands_out_the_same_uids_and_names_on_every_run():
    first = _create_two(Cluster(ids=SeededIds(7)))
    again = _create_two(Cluster(ids=SeededIds(7)))
    other_seed = _create_two(Cluster(ids=SeededIds(8)))
    assert first == again
    assert first != other_seed
    assert first[0] != first[1]
    for uid, name in first:
        assert uuid.UUID(uid).version == 4
        assert name.startswith("team-") and len(name) == len("team-") + 5


def test_an_unseeded_cluster_draws_them_at_random():
    assert _create_two(Cluster()) != _create_two(Cluster())
