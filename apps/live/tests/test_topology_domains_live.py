"""Free GPUs per topology domain on the live view, from the cluster's Nodes and
Pods over HTTP (on both clusters: the kube-scheduler binds the real one's pods), and the gang that waits for a rack to clear.

Worked out by hand: one block ``b1`` of two racks of two 8-GPU hosts (r1: h1, h2;
r2: h3, h4), 16 GPUs a rack, 32 in the block; quota 48, so quota never decides.

* ``pair``: 2 pods × 8 GPUs required in one rack: admitted, it fills one rack
  (16 of 16 in use, 0 free); the other rack stays empty (16 free). Block b1: 16 of 32.
* ``trio``: 3 pods × 8 = 24 GPUs required in one rack: no rack has 24, so it waits;
  the freest rack has 16.

The fixture's two unlabelled nodes carry no ``gpu`` label: not the flavor's, not counted.
"""

from __future__ import annotations

import pytest

from apps.jobs import manifests
from informer.kinds import JOB
from testkit.clients import api_as
from testkit.factories import make_flavor
from testkit.live_jobs import wait_for_state
from testkit.topology import BLOCK, HOST, RACK, add_racks, create_tas_queue
from testkit.waiting import wait_until

pytestmark = [pytest.mark.django_db]
FLAVOR, NAMESPACE = "tasl-b200", "tasl-team"
RACKS = {"tasl-h1": "r1", "tasl-h2": "r1", "tasl-h3": "r2", "tasl-h4": "r2"}
LEVELS = [
    {"name": "block", "node_label": BLOCK},
    {"name": "rack", "node_label": RACK},
    {"name": "host", "node_label": HOST},
]


def _setup(cluster, admin) -> None:
    node_labels = {"gpu": FLAVOR}
    make_flavor(admin, FLAVOR, node_labels=node_labels, topology_levels=LEVELS)
    add_racks(cluster, RACKS, node_labels)
    create_tas_queue(
        cluster,
        flavor=FLAVOR,
        node_labels=node_labels,
        queue="tasl-q",
        namespace=NAMESPACE,
        gpus=48,
    )


def _submit(cluster, name: str, pods: int) -> None:
    spec = manifests.JobSpec(
        name=name,
        namespace=NAMESPACE,
        team="tasl",
        owner="alice",
        queue="main",
        priority_class="",
        image="trainer",
        command=("train",),
        gpu_resource="nvidia.com/gpu",
        gpus_per_pod=8,
        pods=pods,
        sim_duration_seconds=7200,
        node_selector={"gpu": FLAVOR},
        topology_label=RACK,
        topology_mode="required",
    )
    with cluster.client() as kube:
        kube.create(JOB, manifests.render_job(spec))


def _figures(level: dict) -> list[tuple[int, int, int]]:
    """(allocatable, in use, free) of each domain, fullest first: which rack the engine
    picks is its business, how full each one is is ours."""
    rows = [(d["allocatable"], d["in_use"], d["free"]) for d in level["domains"]]
    return sorted(rows, key=lambda r: -r[1])


@pytest.mark.both_clusters
def test_it_shows_free_gpus_per_rack_and_the_gang_waiting_for_one(sim, admin):
    _setup(sim, admin)
    _submit(sim, "pair", 2)
    wait_for_state(sim, NAMESPACE, "pair", "admitted")
    _submit(sim, "trio", 3)
    wait_for_state(sim, NAMESPACE, "trio", "pending")

    def settled():
        body = api_as(admin).get("/api/v1/live/queues/").json()
        topology = body["topology"]
        (flavor,) = topology["flavors"]
        in_use = sum(d["in_use"] for d in flavor["levels"][0]["domains"])
        return topology if in_use == 16 and topology["waiting"] else None  # pods bound

    topology = wait_until(settled, timeout=60, interval=0.5)
    (flavor,) = topology["flavors"]
    block, rack, host = flavor["levels"]
    assert (flavor["flavor"], block["level"], rack["level"]) == (FLAVOR, "block", "rack")
    # Block b1: 4 × 8 = 32 GPUs, pair's 2 × 8 = 16 in use.
    assert [d["domain"] for d in block["domains"]] == ["b1"]
    assert _figures(block) == [(32, 16, 16)]
    # pair fills one rack (2 × 8 = 16 of 16); the other is empty.
    assert sorted(d["domain"] for d in rack["domains"]) == ["b1/r1", "b1/r2"]
    assert _figures(rack) == [(16, 16, 0), (16, 0, 16)]
    # One pod per host of that rack: two hosts 8 of 8, two empty.
    assert _figures(host) == [(8, 8, 0), (8, 8, 0), (8, 0, 8), (8, 0, 8)]

    (waits,) = topology["waiting"]
    # trio needs 3 × 8 = 24 GPUs in one rack; the freest rack has 16.
    assert (waits["needs"], waits["freest_free"], waits["level"]) == (24, 16, "rack")
    assert waits["summary"].startswith(f"needs 24 GPUs in one rack of {FLAVOR}; the freest rack")
    assert waits["summary"].endswith("has 16")
