"""The usage views' range: presets and their steps, and bad input refused with the field,
the rule and an example (400 on the API and on the page)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from apps.reports.ranges import parse_range
from core.errors import InvalidInput
from testkit.clients import api_as

NOW = datetime(2026, 12, 5, 12, 0, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("name", "step", "steps"),
    [
        ("24h", 5, 288),  # 1,440 min: 2-minute steps would be 720 > 500
        ("7d", 30, 336),  # 10,080 min: 15-minute steps would be 672
        ("30d", 120, 360),  # 43,200 min: 60-minute steps would be 720
    ],
)
def test_each_preset_keeps_within_500_points(name, step, steps):
    chosen = parse_range({"range": name}, now=NOW)
    assert (chosen.step, chosen.steps) == (step, steps)
    assert chosen.times()[-1] == datetime(
        2026, 12, 5, 12, 1, tzinfo=UTC
    )  # the minute of NOW, ended


def test_from_moves_back_to_a_whole_step():
    # 10:00 → 19:00 is 540 minutes: 2-minute steps, 270 of them. 10:01 → 19:00 is 539:
    # 270 steps of 2 minutes again, so from moves back to 19:00 − 540 min = 10:00.
    chosen = parse_range({"from": "2026-11-16T10:00:00Z", "to": "2026-11-16T19:00:00Z"}, now=NOW)
    assert (chosen.step, chosen.steps) == (2, 270)
    odd = parse_range({"from": "2026-11-16T10:01", "to": "2026-11-16T19:00"}, now=NOW)
    assert odd.step == 2 and odd.times()[0] == datetime(2026, 11, 16, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("range=3d", "range", "range=7d"),
        ("range=", "range", "range=7d"),
        ("range=7d&from=2026-11-16T00:00Z", "from", "only with range=custom"),
        ("range=7d&step=1", "step", "not a parameter"),
        ("range=custom&to=2026-11-17T00:00Z", "from", "2026-11-16T09:00Z"),
        ("from=yesterday&to=2026-11-17T00:00Z", "from", "ISO 8601"),
        ("from=2026-11-17T00:00Z&to=2026-11-16T00:00Z", "to", "after from"),
        ("from=2026-08-01T00:00Z&to=2026-11-01T00:00Z", "to", "at most 90 days"),  # 92 days
    ],
)
def test_bad_ranges_are_refused_naming_the_field(admin, client, query, field, words):
    response = api_as(admin).get(f"/api/v1/usage/?{query}")
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == field and words in body["errors"][field][0]
    client.force_login(admin)
    page = client.get(f"/reports/usage/?{query}")
    assert page.status_code == 400 and words in page.content.decode()


def test_parse_range_raises_invalid_input_for_an_unknown_preset():
    with pytest.raises(InvalidInput):
        parse_range({"range": "1y"}, now=NOW)
