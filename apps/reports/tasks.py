"""Celery entry points of the reports domain. Thin: each calls one service."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from apps.reports import services
from apps.reports.compute.weeks import week_of


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
