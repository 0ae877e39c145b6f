"""Missing data is named by its source for everyone; only platform admins read the
technical reason (Prometheus and OpenCost addresses, queries, errors)."""

from __future__ import annotations

import pytest

from apps.reports import services
from apps.reports.gaps import message
from testkit import history
from testkit.clients import api_as
from testkit.promdata import MONDAY, WEEK

INTERNAL = "127.0.0.1:9"  # the discard port: nothing listens, so both sources fail
GPU_METRICS = "GPU metrics (Prometheus) were unavailable for this week"


@pytest.fixture
def week_without_metrics(settings, queue):
    settings.PROMETHEUS_URL = f"http://{INTERNAL}"
    settings.OPENCOST_URL = f"http://{INTERNAL}/opencost"
    history.record(
        history.life("train-a", "team-vision", created=MONDAY + 3600, admitted=MONDAY + 7200,
                     ended=MONDAY + 5 * 3600, gpus=2),
    )  # fmt: skip
    return services.build_weekly_report(WEEK)


def views(client) -> dict[str, str]:
    pages = (f"/reports/{WEEK}/", f"/reports/{WEEK}/report.json", f"/reports/{WEEK}/report.csv")
    return {url: _text(client.get(url)) for url in pages}


def _text(response) -> str:
    assert response.status_code == 200
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def test_members_read_which_source_was_missing_not_where_it_lives(
    week_without_metrics, client, scientist
):
    client.force_login(scientist)
    for url, body in views(client).items():
        assert GPU_METRICS in body, url
        assert INTERNAL not in body, url
    gaps = api_as(scientist).get(f"/api/v1/reports/{WEEK}/").json()["gaps"]
    assert GPU_METRICS in [g["message"] for g in gaps]
    assert all("reason" not in g for g in gaps)


def test_platform_admins_also_read_the_reason(week_without_metrics, client, admin):
    client.force_login(admin)
    for url, body in views(client).items():
        assert GPU_METRICS in body and INTERNAL in body, url
    gaps = api_as(admin).get(f"/api/v1/reports/{WEEK}/").json()["gaps"]
    assert any(INTERNAL in g["reason"] for g in gaps)


def test_gaps_stored_before_they_had_a_kind_get_a_message_from_their_panel():
    stored = {"panel": "utilisation", "reason": f"Prometheus unreachable at http://{INTERNAL}"}
    assert message(stored) == GPU_METRICS
