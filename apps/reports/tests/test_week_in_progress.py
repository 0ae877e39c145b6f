"""A week that has not ended is priced up to its build, and says so; a finished week
counts all of its 168 hours."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from apps.queues.models import ResourceFlavor
from apps.reports import charts, services
from apps.reports.compute import fairness
from apps.reports.compute.records import HOUR, Run, WeekInput
from apps.reports.models import GpuPrice
from testkit.clients import api_as
from testkit.factories import make_queue, quota

WEEK = "2026-W49"  # Monday 2026-11-30 00:00 UTC to Monday 2026-12-07 00:00 UTC
WEDNESDAY_NOON = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
AFTER_THE_WEEK = datetime(2026, 12, 8, 9, 0, tzinfo=UTC)


@pytest.fixture
def four_idle_gpus(settings, catalog, team):
    """Vision reserves 4 h100 at $2.50/GPU-h and runs nothing; no Prometheus or OpenCost."""
    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""
    make_queue(catalog, team, quotas=[quota("h100", "4")])
    flavor = ResourceFlavor.objects.get(name="h100")
    GpuPrice.objects.create(flavor=flavor, usd_per_gpu_hour=Decimal("2.50"))


def vision_cost(data: dict) -> dict:
    return next(row for row in data["cost"]["teams"] if row["team"] == "vision")


def test_the_week_in_progress_counts_the_hours_up_to_its_build(four_idle_gpus):
    data = services.build_weekly_report(WEEK, now=WEDNESDAY_NOON).data
    # Monday 00:00 → Wednesday 12:00 = 2 × 24 + 12 = 60 h.
    assert data["period"] == {"covered_hours": 60.0, "week_hours": 168.0, "in_progress": True}
    (h100,) = vision_cost(data)["idle_by_flavor"]
    # 4 GPUs × 60 h = 240 reserved GPU-h, all idle; 240 × $2.50 = $600.
    assert h100["reserved_gpu_hours"] == 240.0 and h100["idle_gpu_hours"] == 240.0
    assert vision_cost(data)["idle_reserved_cost"] == 600.0


def test_the_same_week_built_after_it_ended_counts_all_168_hours(four_idle_gpus):
    data = services.build_weekly_report(WEEK, now=AFTER_THE_WEEK).data
    assert data["period"] == {"covered_hours": 168.0, "week_hours": 168.0, "in_progress": False}
    (h100,) = vision_cost(data)["idle_by_flavor"]
    # 4 GPUs × 168 h = 672 reserved GPU-h; 672 × $2.50 = $1,680.
    assert h100["reserved_gpu_hours"] == 672.0
    assert vision_cost(data)["idle_reserved_cost"] == 1680.0


def test_page_chart_and_api_say_so_far(four_idle_gpus, client, admin):
    services.build_weekly_report(WEEK, now=WEDNESDAY_NOON)
    client.force_login(admin)
    page = client.get(f"/reports/{WEEK}/").content.decode()
    assert "so far (60 h of 168)" in page
    body = api_as(admin).get(f"/api/v1/reports/{WEEK}/").json()
    assert body["period"]["covered_hours"] == 60.0 and body["period"]["in_progress"]


def test_a_finished_week_has_no_so_far_label(four_idle_gpus, client, admin):
    services.build_weekly_report(WEEK, now=AFTER_THE_WEEK)
    client.force_login(admin)
    page = client.get(f"/reports/{WEEK}/").content.decode()
    assert "so far (" not in page and "The week is in progress" not in page


def test_the_chart_draws_nominal_times_the_hours_so_far(four_idle_gpus):
    data = services.build_weekly_report(WEEK, now=WEDNESDAY_NOON).data
    line = charts.usage_vs_quota(data)["data"][-1]
    # 4 GPUs × 60 h = 240 GPU-h.
    assert line["name"] == "nominal quota × hours so far (60 h of 168)" and line["y"] == [240.0]
    finished = services.build_weekly_report(WEEK, now=AFTER_THE_WEEK).data
    line = charts.usage_vs_quota(finished)["data"][-1]
    assert line["name"] == "nominal quota × week" and line["y"] == [4 * 168.0]


def test_the_csv_carries_the_period(four_idle_gpus, client, admin):
    services.build_weekly_report(WEEK, now=WEDNESDAY_NOON)
    client.force_login(admin)
    csv_text = b"".join(client.get(f"/reports/{WEEK}/report.csv").streaming_content).decode()
    assert f"{WEEK},period,0,covered_hours,60.0\r\n" in csv_text
    assert f"{WEEK},period,0,in_progress,True\r\n" in csv_text


def test_usage_so_far_decays_from_the_build_not_from_the_weeks_end():
    monday = WEDNESDAY_NOON.timestamp() - 60 * HOUR
    wednesday = monday + 48 * HOUR
    week = WeekInput(
        start=monday, end=monday + 168 * HOUR, now=WEDNESDAY_NOON.timestamp(),
        runs=[Run("a", "vision", "vision", "", "", "h100", gpus=2, start=wednesday)],
    )  # fmt: skip
    (decayed,) = fairness.decayed_gpu_hours(week)
    # 2 GPUs from Wednesday 00:00, still running at the build 12 h later; half-life 168 h:
    # 2 × ∫₀¹² 2^(−(12−u)/168) du = 2 × 168/ln 2 × (1 − 2^(−12/168))
    #   = 2 × 242.3728 × (1 − 0.9516952) = 2 × 11.70778 = 23.416 GPU-h
    # (from the week's end, 108 h later, it would be 2^(−108/168) = 0.64044 × that: 14.996).
    assert decayed == pytest.approx(23.416, abs=0.001)


def test_the_trend_labels_the_week_in_progress_so_far(four_idle_gpus, client, admin):
    services.build_weekly_report("2026-W48", now=AFTER_THE_WEEK)
    services.build_weekly_report(WEEK, now=WEDNESDAY_NOON)
    client.force_login(admin)
    page = client.get("/reports/trend/").content.decode()
    # W48 is over; W49 was built on Wednesday 12:00: 60 h of its 168.
    assert page.count("data-so-far") == 1 and "so far (60 h of 168)</span>" in page
    assert '"2026-W48", "2026-W49 so far (60 h of 168)"' in page
    rows = api_as(admin).get("/api/v1/reports/trend/").json()
    assert [
        (r["week"], r["period"]["covered_hours"], r["period"]["in_progress"]) for r in rows
    ] == [
        ("2026-W48", 168.0, False),
        ("2026-W49", 60.0, True),
    ]
