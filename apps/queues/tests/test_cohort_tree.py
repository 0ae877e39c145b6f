"""The cohort tree picture, worked out by hand on a small tree: root cohort ``lab`` with
child cohort ``ml``; queue ``vision`` in ``ml``, queues ``nlp`` and the shared ``notebooks``
pool in ``lab``; a standalone queue ``batch`` outside any cohort."""

from __future__ import annotations

from apps.queues.cohort_tree import tree_nodes, treemap_spec, trees_holding

GPU = "nvidia.com/gpu"


def quota(flavor, nominal, resource=GPU, borrowing=None, lending=None):
    return {
        "flavor": flavor,
        "resource": resource,
        "nominal": nominal,
        "borrowing_limit": borrowing,
        "lending_limit": lending,
    }


def queue(name, team, cohort, quotas):
    return {"name": name, "team": team, "cohort": cohort, "quotas": quotas}


COHORTS = [{"name": "lab", "parent": None}, {"name": "ml", "parent": "lab"}]
QUEUES = [
    queue(
        "vision",
        "vision",
        "ml",
        [
            quota("h100", "8", borrowing="4", lending="2"),
            quota("a100", "8"),
            quota("a100", "16", resource="nvidia.com/mig-1g.10gb"),  # slices: not GPUs
            quota("a100", "32", resource="cpu"),
        ],
    ),
    queue("nlp", "nlp", "lab", [quota("h100", "4"), quota("a100", "2")]),
    queue("notebooks", None, "lab", [quota("a100", "2", borrowing="0")]),
    queue("batch", "ops", None, [quota("h100", "1")]),
]


def test_every_box_is_labelled_with_its_gpus_per_flavor_and_sized_by_them():
    nodes = tree_nodes(COHORTS, QUEUES)
    assert [(n.id, n.parent, n.label, float(n.gpus)) for n in nodes] == [
        # lab = ml (8 h100 + 8 a100) + nlp (4 h100 + 2 a100) + notebooks (2 a100)
        #     = h100 8+4 = 12, a100 8+2+2 = 12; 24 in all
        ("cohort:lab", "", "cohort lab · h100 12, a100 12", 24.0),
        # ml holds vision alone: h100 8, a100 8 (MIG slices and CPU left out); 16
        ("cohort:ml", "cohort:lab", "cohort ml · h100 8, a100 8", 16.0),
        ("queue:vision", "cohort:ml", "vision · h100 8, a100 8", 16.0),
        ("queue:nlp", "cohort:lab", "nlp · h100 4, a100 2", 6.0),  # 4 + 2
        ("queue:notebooks", "cohort:lab", "notebooks (shared) · a100 2", 2.0),
        ("queue:batch", "", "batch · h100 1", 1.0),
    ]


def test_limits_are_in_the_hover_text():
    hover = {n.id: n.hover for n in tree_nodes(COHORTS, QUEUES)}
    assert hover["queue:vision"] == (
        "ClusterQueue vision (team vision)"
        "<br>h100: nominal 8, borrowing limit 4, lending limit 2"
        "<br>a100: nominal 8, borrowing limit unlimited, lending limit all"
    )
    assert hover["queue:notebooks"] == (
        "ClusterQueue notebooks (shared)<br>a100: nominal 2, borrowing limit 0, lending limit all"
    )
    assert hover["cohort:lab"] == (
        "cohort lab (root cohort)<br>nominal GPUs in its subtree: h100 12, a100 12"
        "<br>2 ClusterQueues, 1 child cohorts"
    )


def test_a_team_sees_the_whole_tree_holding_its_queues_and_no_other_standalone_queue():
    cohorts, queues = trees_holding(COHORTS, QUEUES, ["vision"])
    assert [c["name"] for c in cohorts] == ["lab", "ml"]
    assert [q["name"] for q in queues] == ["vision", "nlp", "notebooks"]
    cohorts, queues = trees_holding(COHORTS, QUEUES, ["batch"])
    assert (cohorts, [q["name"] for q in queues]) == ([], ["batch"])


def test_the_spec_is_a_treemap_whose_parents_hold_the_sum_of_their_children():
    trace = treemap_spec(tree_nodes(COHORTS, QUEUES), "nothing")["data"][0]
    assert trace["type"] == "treemap" and trace["branchvalues"] == "total"
    assert trace["parents"] == ["", "cohort:lab", "cohort:ml", "cohort:lab", "cohort:lab", ""]
    assert trace["values"] == [24.0, 16.0, 16.0, 6.0, 2.0, 1.0]  # 24 = 16 + 6 + 2


def test_a_tree_without_gpus_says_so():
    spec = treemap_spec(tree_nodes(COHORTS[:1], []), "No GPU quota in any cohort yet.")
    assert spec["data"] == []
    assert spec["layout"]["annotations"][0]["text"] == "No GPU quota in any cohort yet."
