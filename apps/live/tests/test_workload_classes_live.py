"""Queues now names each workload's class: interactive, inference or batch (pure)."""

from apps.live import compute


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
