"""Every date reads one way: ISO 8601 to the minute, in the current zone, the zone shown."""

import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from django.template import Context, Template
from django.utils import timezone

from core.dates import clamped, format_when

ROOT = Path(__file__).resolve().parents[2]
AT = datetime(2026, 12, 2, 10, 31, 7, tzinfo=UTC)


def test_the_server_zone_by_default(settings):
    settings.TIME_ZONE = "UTC"
    assert format_when(AT) == "2026-12-02 10:31 UTC"
    assert format_when(AT, seconds=True) == "2026-12-02 10:31:07 UTC"


@pytest.mark.parametrize(
    ("zone", "expected"),
    [
        ("Europe/Berlin", "2026-12-02 11:31 CET"),  # UTC+1 in winter
        ("America/New_York", "2026-12-02 05:31 EST"),  # UTC-5
        ("America/Caracas", "2026-12-02 06:31 -04:00"),  # a zone without an abbreviation
        ("Asia/Kathmandu", "2026-12-02 16:16 +05:45"),
    ],
)
def test_the_active_zone_is_used_and_shown(zone, expected):
    with timezone.override(zone):
        assert format_when(AT) == expected


def test_nothing_is_empty_and_a_calendar_date_has_no_zone():
    assert format_when(None) == ""
    assert format_when(date(2026, 12, 2)) == "2026-12-02"


def test_the_template_filter_needs_no_load_and_follows_time_zone(settings):
    template = Template('{{ at|when }} · {{ at|when:"seconds" }} · {{ none|when|default:"never" }}')
    rendered = template.render(Context({"at": AT, "none": None}))
    assert rendered == "2026-12-02 10:31 UTC · 2026-12-02 10:31:07 UTC · never"
    settings.TIME_ZONE = "Europe/Berlin"
    assert Template("{{ at|when }}").render(Context({"at": AT})) == "2026-12-02 11:31 CET"


def test_no_template_formats_a_date_any_other_way():
    templates = [*ROOT.glob("templates/**/*.html"), *ROOT.glob("apps/*/templates/**/*.html")]
    offenders = [
        f"{path.relative_to(ROOT)}: {match}"
        for path in templates
        for match in re.findall(r"\|(?:date|time|naturaltime|timesince)\b[^}]*", path.read_text())
    ]
    assert templates and not offenders


def test_a_clusters_iso_string_reads_like_any_time_and_other_text_stays():
    with timezone.override("Europe/Berlin"):
        # 14:23:05Z is 15:23:05 in Berlin in December (UTC+1).
        assert format_when("2026-12-04T14:23:05Z", seconds=True) == "2026-12-04 15:23:05 CET"
    assert format_when("2026-12-04T14:23:05.123456Z") == "2026-12-04 14:23 UTC"
    assert format_when("not a time") == "not a time"


def test_a_foreign_time_is_clamped_into_the_records_own_span():
    created, read = AT, AT.replace(hour=11)
    earlier, later = AT.replace(day=1), AT.replace(day=3)
    assert clamped(earlier, earliest=created, latest=read) == created
    assert clamped(later, earliest=created, latest=read) == read
    assert clamped(AT.replace(minute=45), earliest=created, latest=read) == AT.replace(minute=45)


def test_audited_values_show_times_as_pages_do_and_leave_the_rest():
    template = Template("{{ t|shown }} · {{ n|shown }} · {{ s|shown }} · {{ at|iso }}")
    context = {"t": "2026-12-02T10:31:07Z", "n": 16, "s": "h100", "at": AT}
    assert template.render(Context(context)) == (
        "2026-12-02 10:31:07 UTC · 16 · h100 · 2026-12-02T10:31:07Z"
    )
