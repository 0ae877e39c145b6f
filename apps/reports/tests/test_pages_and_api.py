"""Stored weekly reports through pages, API, downloads and the command, scoped per team."""

from __future__ import annotations

import io
import json
from datetime import UTC, timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.dateparse import parse_datetime

from core.dates import format_when
from testkit.clients import api_as
from testkit.promdata import WEEK

H = 3600.0


def teams_in(body: dict) -> set[str]:
    return {t["team"] for t in body["fairness"]["teams"]}


def test_recorded_history_becomes_the_expected_report(stored):
    teams = {t["team"]: t for t in stored.data["fairness"]["teams"]}
    assert teams["vision"]["received_gpu_hours"] == pytest.approx(20.0)
    assert teams["nlp"]["received_gpu_hours"] == pytest.approx(4.0)
    vision_wait = next(
        r for r in stored.data["waits"] if r["key"] == "vision" and r["dimension"] == "queue"
    )
    assert vision_wait["max"] == pytest.approx(600.0)
    assert stored.totals["gpu_hours"] == pytest.approx(24.0)


def test_admins_see_every_team_and_members_only_theirs(stored, admin, scientist, other_lead):
    assert teams_in(api_as(admin).get(f"/api/v1/reports/{WEEK}/").json()) == {"vision", "nlp"}
    assert teams_in(api_as(scientist).get(f"/api/v1/reports/{WEEK}/").json()) == {"vision"}
    assert teams_in(api_as(other_lead).get(f"/api/v1/reports/{WEEK}/").json()) == {"nlp"}


def test_the_week_page_renders_from_the_snapshot(stored, client, scientist):
    client.force_login(scientist)
    page = client.get(f"/reports/{WEEK}/")
    assert page.status_code == 200
    assert b"vision" in page.content and b"cdf-data" in page.content
    assert client.get("/reports/2026-W01/").status_code == 404
    assert client.get("/reports/").status_code == 302


def test_downloads_are_scoped_too(stored, client, scientist):
    client.force_login(scientist)
    body = json.loads(client.get(f"/reports/{WEEK}/report.json").content)
    assert teams_in(body) == {"vision"}
    csv_text = b"".join(client.get(f"/reports/{WEEK}/report.csv").streaming_content).decode()
    assert csv_text.startswith("week,section,row,field,value")
    assert "team-nlp" not in csv_text and ",nlp\r\n" not in csv_text


def test_the_trend_page_and_api(stored, client, admin):
    client.force_login(admin)
    assert client.get("/reports/trend/").status_code == 200
    trend = api_as(admin).get("/api/v1/reports/trend/").json()
    assert trend[-1]["week"] == WEEK and trend[-1]["gpu_hours"] == pytest.approx(24.0)


def test_the_command_prints_json_and_csv(stored):
    out = io.StringIO()
    call_command("report", "--week", WEEK, "--format", "json", stdout=out)
    assert json.loads(out.getvalue())["week"] == WEEK
    out = io.StringIO()
    call_command("report", "--week", WEEK, "--format", "csv", stdout=out)
    assert out.getvalue().startswith("week,section,row,field,value")


def test_the_report_list_makes_a_constant_number_of_queries(stored, admin):
    client = api_as(admin)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/api/v1/reports/").status_code == 200
    assert len(queries) <= 4


def test_every_report_page_says_when_its_snapshot_was_built(stored, client, scientist):
    client.force_login(scientist)
    # A past week, built now: final, no build scheduled for it any more.
    stamp = f"Built {format_when(stored.built_at)}, final (not rebuilt)."
    assert stamp in client.get(f"/reports/{WEEK}/").content.decode()
    assert stamp in client.get("/reports/trend/").content.decode()
    body = json.loads(client.get(f"/reports/{WEEK}/report.json").content)
    # JSON carries it in the API's one form: UTC, to the second, with Z.
    assert body["built_at"] == stored.built_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert abs(parse_datetime(body["built_at"]) - stored.built_at) < timedelta(seconds=1)
