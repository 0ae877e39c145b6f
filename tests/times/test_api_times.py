"""Every time the REST API writes is ISO 8601 in UTC, to the second, with ``Z``."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.reports.compute.weeks import week_of
from core.dates import iso_z
from testkit.clients import api_as

pytestmark = pytest.mark.django_db

ONE_FORM = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
LOOKS_LIKE_A_TIME = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d")
LISTS = [
    "/api/v1/teams/", "/api/v1/flavors/", "/api/v1/cohorts/", "/api/v1/priority-tiers/",
    "/api/v1/queues/", "/api/v1/change-requests/", "/api/v1/audit/", "/api/v1/notebooks/",
    "/api/v1/jobs/", "/api/v1/whatif/", "/api/v1/reports/", "/api/v1/reports/trend/",
    "/api/v1/live/queues/",
]  # fmt: skip


def times_in(value) -> list[str]:
    """Every string in a JSON body that starts like a date and time."""
    if isinstance(value, dict):
        return [t for v in value.values() for t in times_in(v)]
    if isinstance(value, list):
        return [t for v in value for t in times_in(v)]
    return [value] if isinstance(value, str) and LOOKS_LIKE_A_TIME.match(value) else []


def test_every_time_in_every_list_is_utc_with_z(seeded_world):
    client, seen = api_as(seeded_world), {}
    for url in LISTS:
        response = client.get(url)
        assert response.status_code == 200, (url, response.content[:300])
        seen[url] = times_in(response.json())
    week = week_of(timezone.now())
    seen["report"] = times_in(client.get(f"/api/v1/reports/{week}/").json())
    export = b"".join(client.get("/api/v1/audit/export/").streaming_content).decode()
    seen["audit export"] = [row[1] for row in list(csv.reader(io.StringIO(export)))[1:]]
    wrong = {url: [t for t in times if not ONE_FORM.match(t)] for url, times in seen.items()}
    assert not any(wrong.values()), wrong
    # Not vacuous: the lists that hold timed rows did show times.
    for url in ("/api/v1/notebooks/", "/api/v1/jobs/", "/api/v1/audit/", "/api/v1/whatif/",
                "/api/v1/live/queues/", "report", "audit export"):  # fmt: skip
        assert seen[url], url


def test_iso_z_writes_utc_to_the_second():
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    berlin = datetime(2026, 12, 4, 15, 23, 5, 987654, tzinfo=ZoneInfo("Europe/Berlin"))
    # 15:23:05 in Berlin (UTC+1 in December) is 14:23:05 UTC; the fraction is dropped.
    assert iso_z(berlin) == "2026-12-04T14:23:05Z"
    assert iso_z(datetime(2026, 12, 4, 14, 23, tzinfo=UTC) + timedelta(seconds=5)) == (
        "2026-12-04T14:23:05Z"
    )
    assert iso_z(None) is None
