"""Celery entry points of the reports domain. Thin: each calls one service."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from apps.reports import services
from apps.reports.compute.weeks import week_of
from apps.reports.recorder import run_recorder
from portal.kube import KubeError


@shared_task(soft_time_limit=600, ignore_result=False)
def record_workloads_task(seconds: int | None = None) -> dict:
    """Watch Workloads for a bounded time and record their transitions (resumable)."""
    if not settings.QM_HISTORY_RECORDER:
        return {"skipped": "history recorder disabled"}
    try:
        return run_recorder(seconds=seconds or settings.QM_RECORDER_WATCH_SECONDS)
    except KubeError as exc:
        # The next scheduled run is the retry; the cursor makes it resume.
        return {"error": exc.describe()}


@shared_task(soft_time_limit=1800, ignore_result=False)
def build_weekly_report_task(week: str | None = None) -> str:
    """Build and store one week's snapshot (default: the week that just ended)."""
    week = week or week_of(timezone.now() - timedelta(days=7))
    return services.build_weekly_report(week).week


@shared_task(soft_time_limit=1800, ignore_result=False)
def build_current_week_report_task() -> str:
    """Rebuild the week in progress from what is recorded so far (beat, every
    ``QM_REPORT_REBUILD_MINUTES``). Safe twice or late: it builds the week of the moment it
    runs, and a build never overwrites a snapshot built from later data."""
    return services.build_weekly_report(week_of(timezone.now())).week
