"""Money in a what-if: idle reserved quota, work lost to preemption and borrowing, priced.

A tiny replay worked out by hand. Two teams share the cohort ``research`` on one
flavor (h100, $2.50/GPU-hour); the window is 5 hours.

* ``big``: vision, 8 GPUs, created at 0 h, needs 2 h, no checkpoints.
* ``small``: nlp, 4 GPUs, created at 1 h, needs 1 h.

Now (vision 4, nlp 4 nominal GPUs): ``big`` borrows nlp's 4 idle GPUs from 0 h; at
1 h nlp reclaims them, preempting ``big`` (1 h × 8 GPUs of work lost, no
checkpoint); ``small`` runs 1 h–2 h; ``big`` starts again when it ends and runs its
full 2 h (to ~4 h), borrowing 4 GPUs again.

Draft (vision 8, nlp 0): ``big`` fits its quota and runs 0 h–2 h unpreempted;
``small`` has no quota of its own, waits for ``big`` to end and borrows 4 GPUs for 1 h.
(Kueue's one-second pod stop and requeue delays shift starts, never run lengths.)
"""

from __future__ import annotations

import pytest

from apps.reports.compute.records import Price
from apps.whatif.replay.borrowing import team_nominal_gpus
from apps.whatif.replay.engine import replay
from apps.whatif.replay.money import money
from apps.whatif.replay.trace import PodSetSpec, Window
from apps.whatif.tests.helpers import START_MS, objects, queue, team_workload

HOUR_MS = 3_600_000
WINDOW = Window(START_MS, START_MS + 5 * HOUR_MS)
TRACE = [
    team_workload("big", "vision", START_MS, (PodSetSpec(1, {"nvidia.com/gpu": 8}),),
                  work_ms=2 * HOUR_MS),
    team_workload("small", "nlp", START_MS + HOUR_MS, (PodSetSpec(1, {"nvidia.com/gpu": 4}),),
                  work_ms=HOUR_MS),
]  # fmt: skip
NOW = objects([queue("vision", "4"), queue("nlp", "4")])
DRAFT = objects([queue("vision", "8"), queue("nlp", "0")])


def _money(prices: dict[str, float]) -> dict:
    now, draft = replay(NOW, TRACE, WINDOW), replay(DRAFT, TRACE, WINDOW)
    nominal = (team_nominal_gpus(NOW), team_nominal_gpus(DRAFT))
    return money(now.by_flavor, draft.by_flavor, nominal, prices, WINDOW.hours)


def _team(result: dict, name: str) -> dict:
    return next(t for t in result["teams"] if t["team"] == name)


def test_the_replay_preempts_as_worked_out_by_hand():
    now = replay(NOW, TRACE, WINDOW)
    assert now.outcomes["team-vision/big"].preemptions == 1
    assert replay(DRAFT, TRACE, WINDOW).outcomes["team-vision/big"].preemptions == 0


def test_each_team_pays_for_idle_quota_lost_work_and_borrowing_at_the_flavors_price():
    result = _money({"h100": 2.50})
    vision, nlp = _team(result, "vision"), _team(result, "nlp")
    # vision now: ran 8 GPUs × 1 h + 8 × 2 h = 24 GPU-h ≥ 4 × 5 h = 20 reserved: idle 0;
    # lost 8 × 1 h = 8 GPU-h ($20.00); borrowed (8 − 4) × (1 h + 2 h) = 12 GPU-h ($30.00).
    assert vision["current"]["idle_reserved_gpu_hours"] == 0
    assert vision["current"]["lost_gpu_hours"] == pytest.approx(8)
    assert vision["current"]["lost_usd"] == pytest.approx(20.00)
    assert vision["current"]["borrowed_gpu_hours"] == pytest.approx(12)
    assert vision["current"]["borrowed_usd"] == pytest.approx(30.00)
    assert vision["current"]["cost_usd"] == pytest.approx(50.00)  # 0 + 20 + 30
    # nlp now: 4 × 5 h = 20 reserved − 4 × 1 h run = 16 GPU-h idle ($40.00); nothing else.
    assert nlp["current"]["idle_reserved_usd"] == pytest.approx(40.00)
    assert nlp["current"]["lost_usd"] == 0 and nlp["current"]["borrowed_usd"] == 0
    # vision draft: 8 × 5 h = 40 reserved − 8 × 2 h = 16 run = 24 GPU-h idle ($60.00).
    assert vision["proposed"]["idle_reserved_gpu_hours"] == pytest.approx(24)
    assert vision["proposed"]["cost_usd"] == pytest.approx(60.00)
    # nlp draft: no quota, so nothing idle; its 4 GPUs × 1 h are all borrowed ($10.00).
    assert nlp["proposed"]["idle_reserved_gpu_hours"] == 0
    assert nlp["proposed"]["borrowed_usd"] == pytest.approx(10.00)
    # Changes, draft − now: vision 60 − 50 = +$10.00; nlp 10 − 40 = −$30.00.
    assert vision["change"]["cost_usd"] == pytest.approx(10.00)
    assert nlp["change"]["cost_usd"] == pytest.approx(-30.00)


def test_the_total_adds_the_teams_up():
    total = _money({"h100": 2.50})["total"]
    # Now: idle 0 + 16 = 16 GPU-h ($40), lost 8 ($20), borrowed 12 ($30): $90.
    # Draft: idle 24 + 0 = 24 GPU-h ($60), lost 0, borrowed 4 ($10): $70.
    assert total["current"]["idle_reserved_gpu_hours"] == pytest.approx(16)
    assert total["current"]["cost_usd"] == pytest.approx(90.00)
    assert total["proposed"]["borrowed_gpu_hours"] == pytest.approx(4)
    assert total["proposed"]["cost_usd"] == pytest.approx(70.00)
    assert total["change"]["idle_reserved_usd"] == pytest.approx(20.00)  # 60 − 40
    assert total["change"]["lost_usd"] == pytest.approx(-20.00)  # 0 − 20
    assert total["change"]["borrowed_usd"] == pytest.approx(-20.00)  # 10 − 30
    assert total["change"]["cost_usd"] == pytest.approx(-20.00)  # 70 − 90
    assert _money({"h100": 2.50})["unpriced_flavors"] == []


def test_a_flavor_without_a_price_says_so_and_stays_out_of_the_dollars():
    result = _money({})  # no price for h100 from any source
    vision = _team(result, "vision")
    row = vision["flavors"][0]
    assert row["flavor"] == "h100" and row["usd_per_gpu_hour"] is None
    assert row["current"]["lost_usd"] is None and row["current"]["cost_usd"] is None
    # The GPU-hours are known; only the dollars are not (never a made-up $0).
    assert row["current"]["lost_gpu_hours"] == pytest.approx(8)
    assert vision["current"]["cost_usd"] is None
    assert vision["unpriced_flavors"] == ["h100"]
    assert result["total"]["current"]["cost_usd"] is None
    assert result["unpriced_flavors"] == ["h100"]


def test_a_priced_flavor_is_summed_without_an_unpriced_one():
    # nlp ran 3 h on 4 h100 GPUs (12 GPU-h) and nothing on a100; 5 h window.
    use = {"nlp": {"h100": [12 * HOUR_MS, 0.0, 0.0]}}
    nominal = {"nlp": {"h100": 4.0, "a100": 2.0}}
    row = _team(money(use, use, (nominal, nominal), {"h100": 2.50}, 5.0), "nlp")
    # h100: 4 × 5 h − 12 = 8 GPU-h idle × $2.50 = $20.00; a100: 2 × 5 h = 10 GPU-h, no price.
    idle = {f["flavor"]: f["current"]["idle_reserved_gpu_hours"] for f in row["flavors"]}
    assert idle == {"a100": 10.0, "h100": 8.0}
    assert row["current"]["idle_reserved_gpu_hours"] == 18.0  # 8 + 10: hours are known
    assert row["current"]["idle_reserved_usd"] == 20.00  # a100's 10 GPU-h left out
    assert row["unpriced_flavors"] == ["a100"]


def test_prices_are_the_reports_own(db):
    from apps.reports.prices import flavor_prices

    assert flavor_prices({"h100": 2.5}) == {"h100": Price(2.5, "opencost")}
