"""Rule "rebalance the fair-sharing weight of a starving team", by hand.

Two teams entitled to half the nominal GPUs each; nlp has one queue of weight 1.
"""

import copy

from apps.whatif.starving import starving_weights

WEIGHTS = {"nlp": [("nlp", 1.0)], "vision": [("vision", 1.0)]}


def week(nlp_received: float, nlp_p95_s: float) -> dict:
    return {
        "period": {"covered_hours": 168.0, "in_progress": False},
        "fairness": {
            "teams": [
                {"team": "nlp", "entitled_share": 0.5, "received_share": nlp_received},
                {"team": "vision", "entitled_share": 0.5, "received_share": 1 - nlp_received},
            ]
        },
        "waits": [
            {"dimension": "team", "key": "nlp", "p95": nlp_p95_s},
            {"dimension": "team", "key": "vision", "p95": 60.0},
        ],
    }


# Newest first: nlp received 30 % (20 points short of 50 %) and waited 2 h at p95, then
# 35 % (15 points short) and 1.5 h.
WEEKS = [("2026-W10", week(0.30, 7200.0)), ("2026-W09", week(0.35, 5400.0))]


def test_it_raises_the_weight_of_a_team_short_of_its_share_every_week():
    [found] = starving_weights(WEEKS, WEIGHTS, fair=True)
    # Mean entitled 0.5 ÷ mean received (0.30 + 0.35) / 2 = 0.325 → × 1.538; 1 × 1.538
    # rounded up to one decimal = 1.6.
    assert (found.team, found.queue, found.current_weight) == ("nlp", "nlp", 1.0)
    assert found.proposed_weight == 1.6
    assert found.title == "Raise the fair-sharing weight of nlp: 1 → 1.6"
    assert found.draft({"quotas": []}) == {"fair_weight": "1.6"}
    assert found.evidence()["rows"][0] == ["2026-W10", "50.0 %", "30.0 %", "20.0 points", "2.0 h"]


def test_the_raise_is_capped_at_twice_the_weight():
    # Received 20 % of an entitled 50 %: ×2.5, capped at ×2: 1 → 2.
    [found] = starving_weights([(w, week(0.2, 7200.0)) for w, _ in WEEKS], WEIGHTS, fair=True)
    assert found.proposed_weight == 2.0


def test_exactly_ten_points_short_counts_and_less_does_not():
    ten = [(w, week(0.40, 7200.0)) for w, _ in WEEKS]  # 50 − 40 = 10 points
    [found] = starving_weights(ten, WEIGHTS, fair=True)
    assert found.proposed_weight == 1.3  # 0.5 / 0.4 = 1.25 → rounded up 1.3
    nine = [(w, week(0.41, 7200.0)) for w, _ in WEEKS]
    assert starving_weights(nine, WEIGHTS, fair=True) == []


def test_a_team_that_did_not_wait_an_hour_is_not_starving():
    calm = copy.deepcopy(WEEKS)
    calm[1][1]["waits"][0]["p95"] = 3599.0
    assert starving_weights(calm, WEIGHTS, fair=True) == []


def test_nothing_without_fair_sharing_or_with_several_queues():
    assert starving_weights(WEEKS, WEIGHTS, fair=False) == []
    two = {**WEIGHTS, "nlp": [("nlp", 1.0), ("nlp-batch", 1.0)]}
    assert starving_weights(WEEKS, two, fair=True) == []
    assert starving_weights(WEEKS[:1], WEIGHTS, fair=True) == []
