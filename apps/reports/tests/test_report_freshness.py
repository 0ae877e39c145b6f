"""When a week's snapshot was built and when it is built next (pure)."""

from datetime import UTC, datetime, timedelta

from apps.reports.freshness import stamp

# Wednesday of 2026-W49; that week began Monday 2026-11-30 00:00 UTC.
NOW = datetime(2026, 12, 2, 10, 31, tzinfo=UTC)
HOUR = timedelta(hours=1)


def test_the_week_in_progress_is_next_built_one_interval_after_its_build():
    result = stamp("2026-W49", NOW - timedelta(minutes=20), now=NOW, every=HOUR)
    assert result.next_at == NOW + timedelta(minutes=40) and not result.overdue


def test_a_missed_rebuild_is_overdue():
    result = stamp("2026-W49", NOW - 3 * HOUR, now=NOW, every=HOUR)
    assert result.next_at == NOW - 2 * HOUR and result.overdue


def test_last_week_waits_for_its_final_monday_build_then_is_final():
    monday = datetime(2026, 11, 30, tzinfo=UTC)
    early = stamp("2026-W48", monday + timedelta(minutes=10), now=monday + HOUR, every=HOUR)
    assert early.next_at == monday + 3 * HOUR and not early.overdue
    final = stamp("2026-W48", monday + 3 * HOUR, now=NOW, every=HOUR)
    assert final.next_at is None and not final.overdue


def test_older_weeks_are_final():
    assert stamp("2026-W40", NOW - 40 * 24 * HOUR, now=NOW, every=HOUR).next_at is None
