"""Every chart names its axes with units (as plotly.js 3+ reads titles) and says when it
has nothing to draw."""

from __future__ import annotations

import pytest

from apps.reports import charts

TEAM_ROW = {"team": "vision"}
REPORT = {
    "wait_cdf": {"vision": [[60, 0.5], [600, 1.0]]},
    "fairness": {
        "teams": [{**TEAM_ROW, "gpu_hours_by_flavor": {"h100": 120.0}, "nominal_gpus": 8}]
    },
    "preemption": {
        "teams": [{**TEAM_ROW, "lost_gpu_hours": 3.5}],
        "pairs": [
            {"preemptor_team": "nlp", "victim_team": "vision", "count": 1, "lost_gpu_hours": 3.5}
        ],
    },
    "cost": {
        "teams": [{**TEAM_ROW, "gpu_cost": 10.0, "other_cost": None, "idle_reserved_cost": 2.0}]
    },
}
EMPTY = {
    "wait_cdf": {},
    "fairness": {"teams": []},
    "preemption": {"teams": [], "pairs": []},
    "cost": {"teams": []},
}
WEEKS = [("2026-W47", {"visible_gpu_hours": 100, "used_gpu_hours": 60, "wait_p95": 30})]
BUILDERS = {
    "wait_cdf": lambda r: charts.wait_cdf(r),
    "usage_vs_quota": lambda r: charts.usage_vs_quota(r),
    "preemption_losses": lambda r: charts.preemption_losses(r),
    "cost_breakdown": lambda r: charts.cost_breakdown(r),
    "who_preempted_whom": lambda r: charts.who_preempted_whom(r),
    "trend": lambda r: charts.trend(WEEKS if r is REPORT else []),
}


def axes(layout: dict) -> dict:
    return {name: value for name, value in layout.items() if name[1:5] == "axis"}


@pytest.mark.parametrize("chart", sorted(BUILDERS))
def test_every_axis_has_a_title_plotly_can_read(chart):
    layout = BUILDERS[chart](REPORT)["layout"]
    titled = axes(layout)
    assert {"xaxis", "yaxis"} <= titled.keys()
    for name, spec in titled.items():
        assert isinstance(spec["title"], dict) and spec["title"]["text"].strip(), name


def test_units_are_named_where_numbers_have_them():
    assert "minutes" in charts.wait_cdf(REPORT)["layout"]["xaxis"]["title"]["text"]
    assert "USD" in charts.cost_breakdown(REPORT)["layout"]["yaxis"]["title"]["text"]
    assert "GPU-hours" in charts.preemption_losses(REPORT)["layout"]["yaxis"]["title"]["text"]
    assert "seconds" in charts.trend(WEEKS)["layout"]["yaxis2"]["title"]["text"]


@pytest.mark.parametrize("chart", sorted(BUILDERS))
def test_a_chart_with_nothing_to_draw_says_so(chart):
    spec = BUILDERS[chart](EMPTY)
    assert spec["data"] == []
    (note,) = spec["layout"]["annotations"]
    assert note["text"].startswith("No ")
    assert spec["layout"]["xaxis"]["visible"] is False


@pytest.mark.parametrize("chart", sorted(BUILDERS))
def test_a_chart_with_data_draws_it(chart):
    spec = BUILDERS[chart](REPORT)
    assert spec["data"] and "annotations" not in spec["layout"]


def test_who_preempted_whom_labels_each_pair_with_its_count_and_loss():
    report = {
        "preemption": {
            "pairs": [
                {
                    "preemptor_team": "vision",
                    "victim_team": "nlp",
                    "count": 3,
                    "lost_gpu_hours": 12.0,
                },
                {"preemptor_team": "", "victim_team": "vision", "count": 1, "lost_gpu_hours": 0.5},
            ]
        }
    }
    (heatmap,) = charts.who_preempted_whom(report)["data"]
    assert heatmap["y"] == ["unknown", "vision"] and heatmap["x"] == ["nlp", "vision"]
    # rows: unknown preempted vision once; vision preempted nlp three times
    assert heatmap["z"] == [[None, 1], [3, None]]
    assert heatmap["text"] == [["", "1 × · 0.5 GPU-h"], ["3 × · 12.0 GPU-h", ""]]
    empty = charts.who_preempted_whom({"preemption": {"pairs": []}})
    assert empty["data"] == []
