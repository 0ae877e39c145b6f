"""The report's numbers for a hand-made week equal answers computed here by brute force.

Expected values come from plain loops over half-hour slices (every time in the
week is on a half hour, so slicing is exact), ``statistics.quantiles`` for the
exact percentiles, and hand arithmetic — never from the report code.
"""

from __future__ import annotations

import math
import statistics

import pytest

from apps.reports.compute import report
from apps.reports.tests import synthetic as s

SLICE = 1800.0


def slices():
    t = s.START
    while t < s.END:
        yield t + SLICE / 2
        t += SLICE


def usage_at(t, queue, flavor):
    return sum(
        r.gpus
        for r in s.runs()
        if r.queue == queue and r.flavor == flavor and r.start <= t < (r.end or s.END)
    )


@pytest.fixture(scope="module")
def built():
    return report.build(s.week())


def row(rows, **match):
    return next(r for r in rows if all(r[k] == v for k, v in match.items()))


def test_it_reports_exact_percentiles_per_queue(built):
    vision = [3600.0, 1800.0] + [float(x) for x in s.VISION_EXTRA_WAITS]
    cuts = statistics.quantiles(vision, n=100, method="inclusive")
    got = row(built["waits"], dimension="queue", key="vision")
    assert got["count"] == 12
    assert got["p50"] == pytest.approx(cuts[49])
    assert got["p90"] == pytest.approx(cuts[89])
    assert got["p95"] == pytest.approx(cuts[94])
    assert got["p99"] == pytest.approx(cuts[98])
    assert got["max"] == 50000.0
    nlp = row(built["waits"], dimension="queue", key="nlp")
    assert (nlp["count"], nlp["p50"], nlp["max"]) == (2, 2700.0, 3600.0)


def test_it_shows_what_kueues_histogram_would_say(built):
    # vision waits by Kueue bucket (le): 5→5, 12→20, 30→40, 75→80, 200→320, 450→640,
    # 1000→1280, 1800→2560, 3000→5120, 3600→5120, 9000→10240, 50000→+Inf.
    # p50: rank 6 falls in (320, 640] holding one wait, 5 below it → 640.
    # p99: rank 11.88 falls in +Inf → the highest finite bound, 40960.
    got = row(built["waits"], dimension="queue", key="vision")
    assert got["p50_kueue"] == pytest.approx(640.0)
    assert got["p99_kueue"] == pytest.approx(40960.0)
    assert got["p50_error"] == pytest.approx(640.0 - got["p50"])


def test_it_finds_starvation_per_queue(built):
    nlp = row(built["starvation"], queue="nlp")
    assert nlp["oldest_pending_uid"] == "D"
    assert nlp["oldest_pending_age"] == pytest.approx((168 - 3) * s.H)
    vision = row(built["starvation"], queue="vision")
    assert (vision["longest_uid"], vision["longest_wait"]) == ("v9", 50000.0)


def brute_borrow_lend():
    borrowed = {"vision": 0.0, "nlp": 0.0}
    lent = {"vision": 0.0, "nlp": 0.0}
    for t in slices():
        use = {q: usage_at(t, q, "h100") for q in borrowed}
        over = {q: max(0, use[q] - 8) for q in use}
        idle = {q: max(0, 8 - use[q]) for q in use}
        total_over, total_idle = sum(over.values()), sum(idle.values())
        for q in use:
            borrowed[q] += over[q] * SLICE / s.H
            if total_idle:
                lent[q] += idle[q] * min(1, total_over / total_idle) * SLICE / s.H
    return borrowed, lent


def test_it_computes_shares_borrowing_and_lending(built):
    teams = built["fairness"]["teams"]
    vision, nlp = row(teams, team="vision"), row(teams, team="nlp")
    assert vision["received_gpu_hours"] == pytest.approx(80 + 16 + 168)
    assert nlp["received_gpu_hours"] == pytest.approx(24 + 4)
    assert vision["received_share"] == pytest.approx(264 / 292)
    assert vision["entitled_share"] == pytest.approx(10 / 18)
    assert nlp["weight_share"] == pytest.approx(0.5)
    borrowed, lent = brute_borrow_lend()
    assert borrowed == {"vision": pytest.approx(16.0), "nlp": pytest.approx(0.0)}
    assert lent["nlp"] == pytest.approx(16.0)
    assert vision["borrowed_gpu_hours"] == pytest.approx(borrowed["vision"])
    assert nlp["lent_gpu_hours"] == pytest.approx(lent["nlp"])
    assert vision["dominant_flavor"] == "a100"
    assert vision["dominant_share"] == pytest.approx(168 / (4 * 168))


def test_it_decays_usage_with_the_half_life(built):
    expected = 0.0
    for t in slices():
        weight = 0.5 ** ((s.END - t) / (24 * s.H))
        gpus = usage_at(t, "vision", "h100") + usage_at(t, "vision", "a100")
        expected += gpus * weight * SLICE / s.H
    got = row(built["fairness"]["teams"], team="vision")["decayed_gpu_hours"]
    # Midpoint slices vs the exact integral: agree to well under a tenth of a percent.
    assert got == pytest.approx(expected, rel=1e-3)
    assert math.isclose(got, expected, rel_tol=1e-3)


def test_it_measures_preemption_losses_and_who_preempted_whom(built):
    events = {e["uid"]: e for e in built["preemption"]["events"]}
    assert events["B"]["lost_gpu_hours"] == pytest.approx(4 * 1)  # checkpoint at 5 h
    assert events["B"]["assumed_from_admission"] is False
    assert events["B"]["lost_cost"] == pytest.approx(16.0)
    assert events["D"]["lost_gpu_hours"] == pytest.approx(2 * 2)  # no checkpoint: since admission
    assert events["D"]["assumed_from_admission"] is True
    pairs = {
        (p["preemptor_team"], p["victim_team"]): p["count"] for p in built["preemption"]["pairs"]
    }
    assert pairs == {("nlp", "vision"): 1, ("", "nlp"): 1}


def test_it_weighs_allocation_by_utilisation(built):
    vision = row(built["utilisation"], team="vision")
    assert vision["allocated_gpu_hours"] == pytest.approx(264)
    assert vision["used_gpu_hours"] == pytest.approx(80 * 0.5 + 16 * 0.25 + 168 * 0.1)
    assert vision["notebook_idle_gpu_hours"] == pytest.approx(168 * 0.9)
    assert vision["energy_kwh"] == pytest.approx(10.0)
    nlp = row(built["utilisation"], team="nlp")
    assert nlp["coverage"] == pytest.approx(24 / 28)


def test_it_charges_teams_back(built):
    vision = row(built["cost"]["teams"], team="vision")
    assert vision["gpu_cost"] == pytest.approx(96 * 4 + 168 * 2)
    assert vision["idle_reserved_cost"] == pytest.approx((8 * 168 - 96) * 4 + (2 * 168 - 168) * 2)
    assert vision["cost_per_useful_gpu_hour"] == pytest.approx(720 / 60.8)
    nlp = row(built["cost"]["teams"], team="nlp")
    assert nlp["gpu_cost"] == pytest.approx(112)


def test_without_placement_facts_fragmentation_is_unknown_not_zero():
    # The hand-made week has no kube-state-metrics facts (see test_fragmentation.py).
    built = report.build(s.week())
    assert built["fragmentation"]["fragmented_gpu_hours"] is None
    assert built["fragmentation"]["flavors"] == []
