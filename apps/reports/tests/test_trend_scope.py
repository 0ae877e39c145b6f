"""The 52-week trend shows figures in the viewer's scope: the whole cluster for an admin;
for a member, their teams' GPU-hours and their own teams' waits, never the cluster's.

The stored week (``stored``): vision ran 2 GPUs for 10 h after waiting 10 min; nlp ran
1 GPU for 4 h after waiting 1 h. No DCGM data (Prometheus off), no preemption."""

from __future__ import annotations

import json
import re

import pytest

from testkit.clients import api_as
from testkit.promdata import WEEK

VISION_GPU_HOURS = 2 * 10.0  # 2 GPUs × 10 h
ALL_GPU_HOURS = 2 * 10.0 + 1 * 4.0  # plus nlp's 1 GPU × 4 h
VISION_WAIT = 10 * 60.0  # its one job's wait, so also its p95
NLP_WAIT = 60 * 60.0


def test_a_scientist_sees_the_team_and_its_own_wait(stored, scientist):
    (week,) = api_as(scientist).get("/api/v1/reports/trend/").json()
    assert week["week"] == WEEK
    assert week["scope"] == "teams" and week["scope_teams"] == ["vision"]
    assert week["visible_gpu_hours"] == pytest.approx(VISION_GPU_HOURS)
    assert week["wait_p95_by_team"] == {"vision": pytest.approx(VISION_WAIT)}
    assert "wait_p95" not in week and "wait_p50" not in week  # the cluster's figures
    assert week["used_gpu_hours"] is None  # nothing measured: unknown, not 0
    assert week["lost_gpu_hours"] == 0.0  # recorded history: no preemption is a known 0


def test_an_admin_sees_the_whole_cluster(stored, admin):
    (week,) = api_as(admin).get("/api/v1/reports/trend/").json()
    assert week["scope"] == "cluster"
    assert week["visible_gpu_hours"] == pytest.approx(ALL_GPU_HOURS)
    assert VISION_WAIT <= week["wait_p95"] <= NLP_WAIT


def chart_of(page: str) -> dict:
    found = re.search(r'<script id="trend-data" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


def test_the_page_says_its_scope_and_draws_every_legend_entry(stored, client, scientist):
    client.force_login(scientist)
    page = client.get("/reports/trend/").content.decode()
    assert "Scope: your teams only (vision)" in page
    chart = chart_of(page)
    names = [trace["name"] for trace in chart["data"]]
    # Busy has no value in any week: left out rather than listed and never drawn.
    assert names == [
        "GPU-hours received",
        "GPU-hours lost to preemption",
        "p95 wait, vision (seconds)",
    ]
    for trace in chart["data"]:
        assert any(v is not None for v in trace["y"]), trace["name"]
    assert chart["data"][2]["y"] == [pytest.approx(VISION_WAIT)]
    assert "p95 wait, vision<" in page and "whole cluster" not in page
    assert '<span title="600 s">10 min</span>' in page  # 10 min wait, exact in the tooltip
    legend = chart["layout"]["legend"]
    assert legend["yanchor"] == "bottom" and legend["y"] > 1  # above the plot, off the axis title


def test_the_admin_page_shows_the_cluster_wait(stored, client, admin):
    client.force_login(admin)
    page = client.get("/reports/trend/").content.decode()
    assert "Scope: the whole cluster." in page
    names = [trace["name"] for trace in chart_of(page)["data"]]
    assert "p95 wait, whole cluster (seconds)" in names
