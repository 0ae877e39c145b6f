"""Free GPUs per topology domain and who waits for one, worked out by hand.

Flavor b200 (nodes labelled gpu=b200), levels block → rack → host. Five b200 nodes of
8 GPUs and one a100 node (not the flavor's):

    b1/r1: h1 (a pod of 6 GPUs), h2 (init container 4, containers 1 + 1: holds 4)
    b1/r2: h3 (a pod of 8), h4 (empty)
    b2/r1: h5 (a pod with limits only, 2)
    a100 node x1: a pod of 8 (not counted: another flavor)
"""

from __future__ import annotations

from apps.live import domains

GPU = "nvidia.com/gpu"
B200 = domains.TopologyFlavor(
    name="b200",
    node_labels={"gpu": "b200"},
    levels=(("block", "ex.com/block"), ("rack", "ex.com/rack"), ("host", "kubernetes.io/hostname")),
)


def node(name: str, block: str, rack: str, flavor: str = "b200") -> dict:
    labels = {"gpu": flavor, "ex.com/block": block, "ex.com/rack": rack}
    labels["kubernetes.io/hostname"] = name
    return {"name": name, "labels": labels, "allocatable": {GPU: "8", "cpu": "128"}}


def pod(on: str, *containers: int, init: tuple[int, ...] = ()) -> dict:
    return {
        "name": f"p-{on}",
        "node": on,
        "containers": [{GPU: str(n), "cpu": "1"} for n in containers],
        "init_containers": [{GPU: str(n)} for n in init],
    }


NODES = [node("h1", "b1", "r1"), node("h2", "b1", "r1"), node("h3", "b1", "r2")]
NODES += [node("h4", "b1", "r2"), node("h5", "b2", "r1"), node("x1", "b9", "r9", "a100")]
PODS = [pod("h1", 6), pod("h2", 1, 1, init=(4,)), pod("h3", 8), pod("x1", 8)]
PODS += [{"name": "limits-only", "node": "h5", "containers": [{GPU: "2"}], "init_containers": []}]


def figures(level: dict) -> dict:
    return {d["domain"]: (d["allocatable"], d["in_use"], d["free"]) for d in level["domains"]}


def test_it_counts_gpus_per_domain_of_every_level():
    (row,) = domains.flavor_rows([B200], NODES, PODS)
    block, rack, host = row["levels"]
    assert [lv["level"] for lv in row["levels"]] == ["block", "rack", "host"]
    # b1: 4 × 8 = 32 allocatable, 6 + 4 + 8 = 18 in use; b2: 8, 2.
    assert figures(block) == {"b1": (32, 18, 14), "b2": (8, 2, 6)}
    # Rack r1 of b1 is not rack r1 of b2: b1/r1 16, 6 + 4 = 10; b1/r2 16, 8; b2/r1 8, 2.
    assert figures(rack) == {"b1/r1": (16, 10, 6), "b1/r2": (16, 8, 8), "b2/r1": (8, 2, 6)}
    assert figures(host) == {
        "b1/r1/h1": (8, 6, 2),
        "b1/r1/h2": (8, 4, 4),
        "b1/r2/h3": (8, 8, 0),
        "b1/r2/h4": (8, 0, 8),
        "b2/r1/h5": (8, 2, 6),
    }


def workload(name: str, pods: int, per_pod: int, required: str = "") -> dict:
    pod_set = {
        "name": "main",
        "count": pods,
        "template": {"spec": {"containers": [{"resources": {"requests": {GPU: str(per_pod)}}}]}},
    }
    if required:
        pod_set["topologyRequest"] = {"required": required}
    return {"metadata": {"namespace": "team-a", "name": name}, "spec": {"podSets": [pod_set]}}


def test_it_names_the_freest_domain_for_a_gang_that_needs_one():
    rows = domains.flavor_rows([B200], NODES, PODS)
    waiting = [
        {"workload": workload("gang", 2, 8, "ex.com/rack"), "cluster_queue": "q"},
        {"workload": workload("loose", 2, 8), "cluster_queue": "q"},  # no level asked
        {"workload": workload("elsewhere", 2, 8, "ex.com/rack"), "cluster_queue": "a100-only"},
    ]
    queue_flavors = {"q": ["a100", "b200"], "a100-only": ["a100"]}
    (row,) = domains.waiting_for_domain(waiting, queue_flavors, rows)
    # 2 pods × 8 = 16 GPUs in one rack; racks have 6, 8 and 6 free: b1/r2 has 8.
    assert (row["name"], row["needs"], row["freest_domain"], row["freest_free"]) == (
        "gang",
        16,
        "b1/r2",
        8,
    )
    assert row["summary"] == "needs 16 GPUs in one rack of b200; the freest rack (b1/r2) has 8"


def test_a_node_missing_a_level_label_is_in_no_domain_of_it():
    bare = {"name": "h6", "labels": {"gpu": "b200"}, "allocatable": {GPU: "8"}}
    (row,) = domains.flavor_rows([B200], [bare], [])
    assert [lv["domains"] for lv in row["levels"]] == [[], [], []]


def test_each_level_draws_in_use_and_free_stacked_per_domain():
    from apps.live.charts import domain_bars

    (row,) = domains.flavor_rows([B200], NODES, PODS)
    figure = domain_bars(row["levels"][1])
    in_use, free = figure["data"]
    # Racks b1/r1, b1/r2, b2/r1: in use 10, 8, 2 and free 6, 8, 6 (16, 16, 8 in all).
    assert in_use["y"] == free["y"] == ["b1/r1", "b1/r2", "b2/r1"]
    assert (in_use["x"], free["x"]) == ([10.0, 8.0, 2.0], [6.0, 8.0, 6.0])
    assert figure["layout"]["barmode"] == "stack"
