"""The what-if's picture: per team, now and with the draft, in the panels' units."""

from __future__ import annotations

from apps.whatif import charts

RESULT = {
    "teams": [
        {"team": "nlp",
         "current": {"p95_wait_s": 7200.0, "gpu_hours": 40.0, "preemptions": 3},
         "proposed": {"p95_wait_s": 1800.0, "gpu_hours": 52.5, "preemptions": 0}},
        {"team": "vision",
         "current": {"p95_wait_s": None, "gpu_hours": 10.0, "preemptions": 0},
         "proposed": {"p95_wait_s": 900.0, "gpu_hours": 8.0, "preemptions": 1}},
    ]
}  # fmt: skip


def test_each_panel_has_now_and_draft_per_team_in_its_unit():
    spec = charts.before_after(RESULT)
    by_panel = {}
    for trace in spec["data"]:
        by_panel.setdefault(trace["yaxis"], {})[trace["name"]] = trace["y"]
    # p95 wait in hours: 7200 s = 2 h, 1800 s = 0.5 h, 900 s = 0.25 h; none stays none
    assert by_panel["y"] == {"now": [2.0, None], "draft": [0.5, 0.25]}
    assert by_panel["y2"] == {"now": [40.0, 10.0], "draft": [52.5, 8.0]}
    assert by_panel["y3"] == {"now": [3, 0], "draft": [0, 1]}
    assert spec["layout"]["yaxis"]["title"]["text"] == "p95 wait (hours)"


def test_the_draft_reads_apart_without_colour_and_is_listed_once():
    spec = charts.before_after(RESULT)
    hatches = {t["name"]: t["marker"]["pattern"]["shape"] for t in spec["data"]}
    assert hatches == {"now": "", "draft": "/"}
    assert [t["name"] for t in spec["data"] if t["showlegend"]] == ["now", "draft"]


def test_a_replay_without_teams_says_so():
    spec = charts.before_after({"teams": []})
    assert spec["data"] == [] and spec["layout"]["annotations"][0]["text"].startswith("No team")


def test_the_cost_panel_shows_each_teams_money_and_none_without_a_price():
    money = {
        "teams": [
            {"team": "nlp", "current": {"cost_usd": 90.0}, "proposed": {"cost_usd": 70.0}},
            {"team": "vision", "current": {"cost_usd": None}, "proposed": {"cost_usd": None}},
        ]
    }
    spec = charts.before_after({**RESULT, "money": money})
    cost = {t["name"]: t["y"] for t in spec["data"] if t["yaxis"] == "y4"}
    assert cost == {"now": [90.0, None], "draft": [70.0, None]}
    assert spec["layout"]["yaxis4"]["title"]["text"].startswith("cost ($")


def test_a_run_stored_without_money_draws_an_empty_cost_panel():
    spec = charts.before_after(RESULT)
    cost = {t["name"]: t["y"] for t in spec["data"] if t["yaxis"] == "y4"}
    assert cost == {"now": [None, None], "draft": [None, None]}
