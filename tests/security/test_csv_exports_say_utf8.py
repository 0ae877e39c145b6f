"""Every CSV download says it is UTF-8: a bare ``text/csv`` is read as Latin-1 by clients
that follow the HTTP default, and a reason such as "Jürgen's Übung" comes out garbled."""

from __future__ import annotations

import pytest

from apps.reports.services import build_weekly_report
from testkit.clients import api_as
from testkit.factories import quota, set_policy
from testkit.promdata import WEEK

NON_ASCII = "Jürgen's Übung — 東京 ✓"


@pytest.fixture
def exports(queue, admin, settings):
    set_policy(queue, admin, reason=NON_ASCII, quotas=[quota("h100", "12")])
    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""  # a report of gaps only
    report = build_weekly_report(WEEK)
    report.data["gaps"].append({"panel": NON_ASCII})
    report.save(update_fields=["data"])
    return [
        "/api/v1/audit/export/",
        "/audit/?format=csv",
        f"/teams/{queue.team.slug}/audit/?format=csv",
        f"/reports/{WEEK}/report.csv",
    ]


def test_every_csv_export_is_declared_and_encoded_as_utf8(exports, admin):
    client = api_as(admin)
    client.force_login(admin)
    for url in exports:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"] == "text/csv; charset=utf-8", url
        assert NON_ASCII in b"".join(response.streaming_content).decode("utf-8"), url
