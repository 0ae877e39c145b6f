"""``manage.py report --week 2026-W47 --format json|csv [--rebuild]``."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.reports import services
from apps.reports.compute.weeks import parse_week
from apps.reports.exports import csv_rows
from apps.reports.models import WeeklyReport
from core.csv_export import write_csv


class Command(BaseCommand):
    help = "Print one ISO week's report (building and storing it first when missing)."

    def add_arguments(self, parser):
        parser.add_argument("--week", required=True, help="ISO week, e.g. 2026-W47")
        parser.add_argument("--format", choices=("json", "csv"), default="json")
        parser.add_argument("--rebuild", action="store_true", help="rebuild the stored snapshot")

    def handle(self, *args, week: str, format: str, rebuild: bool, **options):
        try:
            parse_week(week)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        snapshot = WeeklyReport.objects.filter(week=week).first()
        if snapshot is None or rebuild:
            snapshot = services.build_weekly_report(week)
        if format == "json":
            self.stdout.write(json.dumps({"week": week, **snapshot.data}, indent=2))
        else:
            write_csv(self.stdout, csv_rows(week, snapshot.data))
