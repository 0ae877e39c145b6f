"""The ±10% weight nudge flags policies whose winners flip on a hair."""

from dataclasses import replace

from apps.whatif.replay.engine import replay
from apps.whatif.replay.metrics import team_metrics
from apps.whatif.replay.sensitivity import (
    NUDGES,
    cluster_queue_names,
    nudge_key,
    nudged_objects,
    sensitivity,
)
from apps.whatif.replay.synthetic import Load, synthetic_trace
from apps.whatif.tests.helpers import START_MS, objects, queue, window


def _mirrored_trace():
    """Both teams submit exactly the same work at the same moments."""
    load = Load("vision", "vision", "team-vision", per_day=60, gpus=(2, 4), minutes=(60, 240))
    vision = synthetic_trace([load], start_ms=START_MS, days=2, seed=11)
    nlp = [
        replace(wl, uid=f"n-{wl.uid}", namespace="team-nlp", team="nlp", queue="nlp")
        for wl in vision
    ]
    return vision + nlp


def _sensitivity(policy):
    trace = _mirrored_trace()

    def metrics(objs):
        result = replay(objs, trace, window())
        return {
            t: m.as_dict()
            for t, m in team_metrics(trace, result, entitled={}, capacity_gpus=16).items()
        }

    nudged = {
        nudge_key(q, sign): metrics(nudged_objects(policy, q, sign))
        for q in cluster_queue_names(policy)
        for sign in NUDGES
    }
    return sensitivity(metrics(policy), nudged)


def test_it_flags_a_knife_edge_policy():
    # Identical teams, identical weights, nothing of their own: the fair-sharing
    # tie decides everything, and any nudge decides it the other way.
    policy = objects(
        [queue("vision", "0", weight="1"), queue("nlp", "0", weight="1")], fair_sharing=True
    )
    policy.append(_pool_cohort())
    report = _sensitivity(policy)
    assert report.knife_edge
    assert report.checked == 4


def test_it_does_not_flag_a_clear_policy():
    policy = objects(
        [queue("vision", "4", weight="1"), queue("nlp", "12", weight="1")], fair_sharing=True
    )
    report = _sensitivity(policy)
    assert not report.knife_edge


def _pool_cohort() -> dict:
    """The shared pool both zero-quota queues borrow from (a Cohort with its own quota)."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Cohort",
        "metadata": {"name": "research"},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": ["nvidia.com/gpu"],
                    "flavors": [
                        {
                            "name": "h100",
                            "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "16"}],
                        }
                    ],
                }
            ]
        },
    }
