"""A what-if's money, from request to API and page, priced with the report's sources."""

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.queues.models import ResourceFlavor
from apps.queues.reconcile.desired import load_state
from apps.reports.compute.records import Price
from apps.reports.compute.weeks import week_of
from apps.reports.glossary import TERMS
from apps.reports.models import GpuPrice, WeeklyReport
from apps.reports.prices import window_prices
from apps.whatif import services
from apps.whatif.choices import RunStatus
from apps.whatif.models import WhatIfRun
from apps.whatif.policies import policy_objects
from testkit.history_traces import history_trace, record_history

pytestmark = pytest.mark.django_db


@pytest.fixture
def priced_h100(queue, other_queue):
    """vision reserves h100 and a100, nlp h100; only h100 has a price (the table's $2.50)."""
    GpuPrice.objects.create(
        flavor=ResourceFlavor.objects.get(name="h100"), usd_per_gpu_hour=Decimal("2.50")
    )
    record_history(policy_objects(load_state(), fair_sharing=False), history_trace())


def _done_run(admin, capture) -> WhatIfRun:
    draft = {"nlp": {"quotas": [{"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "8"}]}}
    with capture(execute=True):
        run = services.request_whatif(draft, actor=admin)
    run = WhatIfRun.objects.get(pk=run.pk)
    assert run.status == RunStatus.DONE, run.error
    return run


def test_the_api_and_page_show_the_money_beside_the_waits(
    admin, priced_h100, eager_celery, django_capture_on_commit_callbacks, client
):
    run = _done_run(admin, django_capture_on_commit_callbacks)
    client.force_login(admin)
    money = client.get(f"/api/v1/whatif/{run.pk}/").json()["money"]
    assert money["prices"] == [{"flavor": "h100", "usd_per_gpu_hour": 2.5, "source": "price-table"}]
    assert money["unpriced_flavors"] == ["a100"]  # vision's a100 quota has no price
    vision = next(t for t in money["teams"] if t["team"] == "vision")
    a100 = next(f for f in vision["flavors"] if f["flavor"] == "a100")
    assert a100["current"]["idle_reserved_usd"] is None
    assert a100["current"]["idle_reserved_gpu_hours"] > 0
    # The lost GPU-hours are the ones the wait table shows, priced at $2.50 on h100.
    waits = {t["team"]: t for t in run.result["teams"]}
    for team in money["teams"]:
        lost = team["current"]["lost_gpu_hours"]
        assert lost == pytest.approx(waits[team["team"]]["current"]["gpu_hours_lost"])
        assert team["current"]["lost_usd"] == pytest.approx(lost * 2.5)
    page = client.get(f"/whatif/{run.pk}/").content.decode()
    assert 'id="whatif-money"' in page and "no price" in page
    assert "No price for 1 flavor (a100)" in page
    assert 'h100 <span title="2.500000 USD">$2.50</span>/GPU-h (price-table)' in page
    # Each money column links to its definition in the glossary.
    linked = set(re.findall(r'href="/reports/glossary/#([a-z-]+)"', page))
    money_terms = {"idle-reserved-cost", "preemption-loss-cost", "borrowed-cost", "whatif-cost"}
    assert money_terms <= linked <= {t.anchor for t in TERMS}


def test_a_window_takes_opencosts_price_from_its_newest_stored_report(db, catalog):
    GpuPrice.objects.create(
        flavor=ResourceFlavor.objects.get(name="h100"), usd_per_gpu_hour=Decimal("2.50")
    )
    end = timezone.now()
    prices = [{"flavor": "h100", "usd_per_gpu_hour": 3.1, "source": "opencost"}]
    WeeklyReport.objects.create(week=week_of(end), data={"cost": {"prices": prices}})
    found = window_prices(end - timedelta(days=7), end)
    assert found == {"h100": Price(3.1, "opencost")}
    # A window no stored report touches keeps the table's price.
    long_ago = datetime(2020, 1, 6, tzinfo=UTC)
    assert window_prices(long_ago, long_ago + timedelta(days=7)) == {
        "h100": Price(2.5, "price-table")
    }
