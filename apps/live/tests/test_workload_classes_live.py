"""Queues now names each workload's class: interactive, inference or batch (pure)."""

from apps.live import compute, fetch


def workload(owner_kind: str, tier: str) -> dict:
    return {
        "metadata": {
            "name": f"w-{owner_kind.lower()}-{tier}",
            "namespace": "team-vision",
            "ownerReferences": [{"kind": owner_kind, "name": "x", "controller": True}],
        },
        "spec": {"queueName": "vision", "priorityClassName": tier, "podSets": []},
        "status": {},
    }


def test_each_workload_row_says_its_class():
    tiers = frozenset({"p0-critical"})
    classes = [
        compute.workload_row(workload(kind, tier), "vision", None, tiers)["class"]
        for kind, tier in (
            ("StatefulSet", "p0-critical"),  # an inference service
            ("StatefulSet", "p1-high"),  # a notebook
            ("Job", "p2-standard"),  # a batch job
        )
    ]
    assert classes == ["inference", "interactive", "batch"]


def test_the_class_survives_what_the_live_views_keep_of_a_workload():
    """The live views read slimmed Workloads: the tier must survive the slimming, in both of
    the forms Kueue writes it (v1beta2's reference and v1beta1's name)."""
    by_ref = workload("StatefulSet", "")
    by_ref["spec"]["priorityClassRef"] = {
        "group": "kueue.x-k8s.io",
        "kind": "WorkloadPriorityClass",
        "name": "p0-critical",
    }
    by_name = workload("StatefulSet", "p0-critical")
    tiers = frozenset({"p0-critical"})
    classes = [
        compute.workload_row(fetch.slim_workload(w), "vision", None, tiers)["class"]
        for w in (by_ref, by_name)
    ]
    assert classes == ["inference", "inference"]
