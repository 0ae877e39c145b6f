"""The demo week's "same rack" job: A100 nodes two to a rack, a Topology for the flavor,
and the gang placed inside one rack by the admission model.

By hand: 4 A100 nodes of 8 GPUs, two to a rack (a100-80gb-01, -02 in rack-1; -03, -04
in rack-2). A ddp job is 2 pods × 4 GPUs required in one rack; alone on the cluster, both
racks have 16 free, BestFit ties go to rack-1 by name, and its pods fill the roomiest node
first: 2 pods × 4 = 8 fit on a100-80gb-01 (8 free), so both go there.
"""

from __future__ import annotations

from kueuemodel.parse import job_to_workload
from kueuemodel.simulation import Simulation
from simcluster import demo

START_MS = 1_780_000_000_000  # 2026-05-28T20:26:40Z
STARTED = "2026-05-28T20:26:40Z"


def test_the_a100_nodes_sit_two_to_a_rack_under_a_topology():
    objects = demo.demo_objects()
    racks = {
        n["metadata"]["name"]: n["metadata"]["labels"].get(demo.RACK)
        for n in demo.nodes_for(objects)
        if n["metadata"]["name"].startswith("a100-80gb-")
    }
    assert racks == {
        "a100-80gb-01": "rack-1",
        "a100-80gb-02": "rack-1",
        "a100-80gb-03": "rack-2",
        "a100-80gb-04": "rack-2",
    }
    (topology,) = [o for o in objects if o["kind"] == "Topology"]
    assert topology["spec"]["levels"] == [{"nodeLabel": demo.RACK}, {"nodeLabel": demo.HOSTNAME}]
    (flavor,) = [o for o in objects if o["metadata"]["name"] == "a100-80gb" and o["kind"] == "ResourceFlavor"]  # fmt: skip
    assert flavor["spec"]["topologyName"] == "a100-80gb"


def test_the_week_has_same_rack_jobs_and_one_lands_in_one_rack():
    objects = demo.demo_objects()
    trace = demo.generate_week(objects, days=7, seed=1, start_ms=START_MS)
    ddp = [m for _at, m in trace if m["metadata"]["name"].startswith("ddp-")]
    assert ddp, "no same-rack job in the week"
    template = ddp[0]["spec"]["template"]
    annotations = template["metadata"]["annotations"]
    assert annotations == {"kueue.x-k8s.io/podset-required-topology": demo.RACK}
    assert ddp[0]["spec"]["parallelism"] == 2

    job = {**ddp[0], "metadata": {**ddp[0]["metadata"], "creationTimestamp": STARTED}}
    workload = job_to_workload(job, demo.TIERS)  # the Job integration, as the engine has it
    sim = Simulation(objects + demo.nodes_for(objects) + [workload], start_ms=START_MS)
    sim.run(START_MS + 60_000)
    (bound,) = sim.cluster.placements.values()
    assert sorted(node for node, _ in bound) == ["a100-80gb-01", "a100-80gb-01"]
