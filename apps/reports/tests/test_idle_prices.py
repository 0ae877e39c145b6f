"""Idle reserved quota is priced from the nodes' OpenCost price, even when nothing ran
on the flavor; a flavor without any price is a gap, never $0 (real Prometheus)."""

from __future__ import annotations

import pytest

from apps.reports import services
from testkit import history, promdata
from testkit.factories import make_flavor, quota, set_policy

START, END = promdata.RUN_START, promdata.RUN_END
CLASS = "gpu.nvidia.com/class"


@pytest.fixture
def reserved_but_unused(settings, prometheus_url, catalog, queue, team):
    settings.PROMETHEUS_URL = prometheus_url
    settings.OPENCOST_URL = ""
    settings.QM_PROMETHEUS_STEP_SECONDS = 300
    make_flavor(catalog, "l40s", {"nvidia.com/gpu": "12"}, node_labels={CLASS: "l40s"})
    make_flavor(catalog, "t4", {"nvidia.com/gpu": "8"}, node_labels={CLASS: "t4"})  # no nodes
    set_policy(queue, catalog, quotas=[quota("h100", "16"), quota("l40s", "4"), quota("t4", "2")])
    history.record(
        history.life("train-a", "team-vision", created=START - 600, admitted=START, ended=END, gpus=2)
    )  # fmt: skip


def vision(data: dict) -> dict:
    return next(c for c in data["cost"]["teams"] if c["team"] == "vision")


def test_idle_quota_on_a_flavor_nothing_ran_on_is_priced_from_its_nodes(reserved_but_unused):
    data = services.build_weekly_report(promdata.WEEK).data
    idle = {row["flavor"]: row for row in vision(data)["idle_by_flavor"]}
    # l40s nodes: 4 GPUs at $1.50 and 8 GPUs at $2.00 → (4 × 1.5 + 8 × 2) / 12 per GPU-hour.
    price = (4 * 1.5 + 8 * 2.0) / 12
    assert idle["l40s"]["usd_per_gpu_hour"] == pytest.approx(price)
    # 4 reserved GPUs × 168 h, none used.
    assert idle["l40s"]["idle_cost"] == pytest.approx(4 * 168 * price)
    # h100: 16 × 168 reserved, train-a used 2 GPUs × 2 h, at the pods' $4.
    assert idle["h100"]["idle_cost"] == pytest.approx((16 * 168 - 2 * 2) * 4.0)


def test_a_flavor_without_any_price_is_a_gap_not_zero(reserved_but_unused):
    data = services.build_weekly_report(promdata.WEEK).data
    row = vision(data)
    t4 = next(r for r in row["idle_by_flavor"] if r["flavor"] == "t4")
    assert t4["idle_cost"] is None and t4["reserved_gpu_hours"] == pytest.approx(2 * 168)
    assert row["idle_reserved_cost"] is None and row["unpriced_flavors"] == ["t4"]
    prices = [g for g in data["gaps"] if g["kind"] == "gpu_prices"]
    assert [g["missing"] for g in prices] == [["t4"]]


def test_the_week_page_says_which_price_is_missing(reserved_but_unused, client, admin):
    services.build_weekly_report(promdata.WEEK)
    client.force_login(admin)
    page = client.get(f"/reports/{promdata.WEEK}/").content.decode()
    assert "no price for t4" in page
