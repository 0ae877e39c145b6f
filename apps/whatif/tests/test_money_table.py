"""The results page's money table: a row per team and flavor, a team's sum when it has
several flavors, then the total; twelve cells each (four figures × now, draft, change)."""

from __future__ import annotations

from apps.whatif.money_table import money_rows

ZERO = {"idle_reserved_gpu_hours": 0.0, "idle_reserved_usd": 0.0, "lost_gpu_hours": 0.0,
        "lost_usd": 0.0, "borrowed_gpu_hours": 0.0, "borrowed_usd": 0.0, "cost_usd": 0.0}  # fmt: skip
UNPRICED = {**ZERO, "idle_reserved_gpu_hours": 10.0, "idle_reserved_usd": None, "lost_usd": None,
            "borrowed_usd": None, "cost_usd": None}  # fmt: skip
IDLE_8 = {**ZERO, "idle_reserved_gpu_hours": 8.0, "idle_reserved_usd": 20.0, "cost_usd": 20.0}


def _sides(figures: dict) -> dict:
    return {"current": figures, "proposed": figures, "change": ZERO}


MONEY = {
    "teams": [
        {"team": "nlp", "flavors": [{"flavor": "a100", **_sides(UNPRICED)},
                                    {"flavor": "h100", **_sides(IDLE_8)}], **_sides(IDLE_8)},
        {"team": "vision", "flavors": [{"flavor": "h100", **_sides(ZERO)}], **_sides(ZERO)},
    ],
    "total": _sides(IDLE_8),
}  # fmt: skip


def test_rows_go_team_by_flavor_then_the_teams_sum_then_the_total():
    rows = money_rows(MONEY)
    assert [(r["team"], r["flavor"], r["total"]) for r in rows] == [
        ("nlp", "a100", False),
        ("nlp", "h100", False),
        ("nlp", "all flavors", True),  # two flavors: their sum
        ("vision", "h100", False),  # one flavor: no sum row
        ("Total", "all flavors", True),
    ]


def test_cells_run_idle_lost_borrowed_cost_each_now_draft_change():
    a100, h100 = money_rows(MONEY)[:2]
    assert len(a100["cells"]) == 12
    # Idle now: a100 has GPU-hours but no price; h100 8 GPU-h at $20.00.
    assert a100["cells"][0] == {"usd": None, "gpu_hours": 10.0}
    assert h100["cells"][0] == {"usd": 20.0, "gpu_hours": 8.0}
    # The cost columns (last three) carry dollars only.
    assert h100["cells"][9] == {"usd": 20.0, "gpu_hours": None}


def test_a_run_without_teams_has_no_rows():
    assert money_rows({"teams": [], "total": _sides(ZERO)}) == []
