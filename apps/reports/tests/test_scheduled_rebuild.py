"""The week in progress is rebuilt on a schedule (a real worker runs the beat entry's task),
its page stamped with the build time; late or repeated builds never lose newer data."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.reports import services
from apps.reports.compute.weeks import week_bounds, week_of
from apps.reports.models import WeeklyReport
from core.dates import format_when
from portal.celery import app
from portal.schedule import beat_schedule
from testkit import history

ENTRY = "build-current-week-report"


def received(snapshot: WeeklyReport, team: str) -> float:
    rows = {t["team"]: t for t in snapshot.data["fairness"]["teams"]}
    return rows[team]["received_gpu_hours"] if team in rows else 0.0


def test_the_beat_entry_runs_every_configured_interval_and_expires_within_it(settings):
    settings.QM_REPORT_REBUILD_MINUTES = 15
    entry = beat_schedule()[ENTRY]
    assert entry["task"] == "apps.reports.tasks.build_current_week_report_task"
    assert entry["schedule"] == timedelta(minutes=15)
    assert entry["options"]["expires"] == 15 * 60


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_worker_rebuilds_the_current_week_and_the_page_says_when(
    worker,
    settings,
    client,
    scientist,
    queue,
):
    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""
    now = timezone.now()
    week = week_of(now)
    first = services.build_weekly_report(week, now=now - timedelta(hours=2))
    client.force_login(scientist)
    page = client.get(f"/reports/{week}/").content.decode()
    assert f"Built {format_when(first.built_at)}" in page and "overdue" in page

    # A job of vision's ran since: 1 GPU from admitted to ended, placed inside this week.
    start = week_bounds(week)[0].timestamp()
    span = now.timestamp() - start
    admitted, ended = start + int(span * 0.2), start + int(span * 0.5)  # whole seconds
    history.record(
        history.life("late-job", "team-vision", created=start + span * 0.1,
                     admitted=admitted, ended=ended)
    )  # fmt: skip
    assert received(first, "vision") == 0.0

    task = beat_schedule()[ENTRY]["task"]
    sent_at = timezone.now()
    assert app.send_task(task).get(timeout=120) == week
    rebuilt = WeeklyReport.objects.get(week=week)
    assert rebuilt.built_at >= sent_at
    assert received(rebuilt, "vision") == pytest.approx((ended - admitted) / 3600)
    page = client.get(f"/reports/{week}/").content.decode()
    next_at = rebuilt.built_at + timedelta(minutes=settings.QM_REPORT_REBUILD_MINUTES)
    assert f"Built {format_when(rebuilt.built_at)}, next build {format_when(next_at)}." in page

    assert app.send_task(task).get(timeout=120) == week  # twice: still one snapshot, newer
    assert WeeklyReport.objects.filter(week=week).count() == 1
    assert WeeklyReport.objects.get(week=week).built_at >= rebuilt.built_at
    assert worker.poll() is None


@pytest.mark.django_db
def test_a_late_build_from_older_data_does_not_overwrite_a_newer_one(settings, team, queue):
    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""
    now = timezone.now()
    week = week_of(now)
    newer = services.build_weekly_report(week, now=now)
    late = services.build_weekly_report(week, now=now - timedelta(minutes=30))
    assert late.built_at == newer.built_at == WeeklyReport.objects.get(week=week).built_at
