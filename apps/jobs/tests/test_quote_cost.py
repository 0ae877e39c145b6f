"""A quote's expected cost: GPUs × expected run time × the flavor's price, by hand.

On the simulated cluster over HTTP, an empty cluster: vision's 16 h100 of its own take
any job below at once (``now``).
"""

from decimal import Decimal

import pytest

from apps.jobs.tests.kit import record_runs
from apps.queues.models import ResourceFlavor
from apps.queues.reconcile.run import reconcile
from apps.reports.models import WeeklyReport
from apps.reports.services.usage import set_gpu_price
from testkit.clients import api_as

pytestmark = pytest.mark.django_db

EIGHT = {"template": "pytorch-train", "flavor": "h100", "gpus_per_pod": 8}


def quote(user, body: dict) -> dict:
    response = api_as(user).post("/api/v1/quotes/", body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


@pytest.fixture
def priced(sim, scientist, queue, template, admin):
    """h100 at $2.50 per GPU-hour in the portal's price table."""
    set_gpu_price(ResourceFlavor.objects.get(name="h100"), Decimal("2.50"), actor=admin)
    reconcile(trigger="manual")


def test_the_cost_is_the_recorded_median_run_on_the_table_price(priced, scientist):
    # Runs of 20, 30 and 40 minutes: the median is 30 min = 0.5 h.
    # 2 pods × 8 GPUs = 16 GPUs × 0.5 h = 8 GPU-hours × $2.50 = $20.00.
    record_runs(scientist, [20, 30, 40])
    body = quote(scientist, {**EIGHT, "pods": 2})
    assert body["verdict"] == "now"
    assert body["expected_cost"] == {
        "usd": 20.0,
        "gpu_hours": 8.0,
        "usd_per_gpu_hour": 2.5,
        "price_source": "price-table",
        "run_hours": 0.5,
        "run_time_basis": "recorded_p50",
        "runs_recorded": 3,
    }
    assert body["cost_note"] == ""


def test_without_recorded_runs_the_cost_is_at_most_the_max_run_time(priced, scientist):
    # No run recorded: 8 GPUs × 90 min = 1.5 h = 12 GPU-hours × $2.50 = $30.00, at most.
    body = quote(scientist, {**EIGHT, "max_runtime_minutes": 90})
    cost = body["expected_cost"]
    assert (cost["usd"], cost["gpu_hours"], cost["run_hours"]) == (30.0, 12.0, 1.5)
    assert (cost["run_time_basis"], cost["runs_recorded"]) == ("max_runtime", 0)


def test_the_newest_weekly_reports_price_wins_over_the_table(priced, scientist):
    prices = [{"flavor": "h100", "usd_per_gpu_hour": 3.0, "source": "opencost"}]
    WeeklyReport.objects.create(week="2026-W48", data={"cost": {"prices": [
        {"flavor": "h100", "usd_per_gpu_hour": 9.0, "source": "opencost"}]}})  # fmt: skip
    WeeklyReport.objects.create(week="2026-W49", data={"cost": {"prices": prices}})
    # 8 GPUs × 1 h (the default maximum run time) = 8 GPU-hours × $3.00 = $24.00.
    cost = quote(scientist, EIGHT)["expected_cost"]
    assert (cost["usd"], cost["usd_per_gpu_hour"]) == (24.0, 3.0)
    assert cost["price_source"] == "opencost, report 2026-W49"


def test_a_flavor_without_a_price_has_no_cost_and_says_why(sim, scientist, queue, template):
    reconcile(trigger="manual")
    body = quote(scientist, EIGHT)
    assert body["verdict"] == "now"
    assert body["expected_cost"] is None
    assert body["cost_note"] == "no price for h100: no weekly report or price table has one"


def test_a_job_that_would_never_fit_has_no_cost(priced, scientist):
    body = quote(scientist, {**EIGHT, "gpus_per_pod": 1, "pods": 17})
    assert body["verdict"] == "never"
    assert body["expected_cost"] is None
