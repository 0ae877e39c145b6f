"""``manage.py rebuild_level_rollup``: the usage views' rollup again from all history."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from apps.reports import services


class Command(BaseCommand):
    help = (
        "Recompute the per-minute rollup of GPUs in use and queue from every recorded "
        "transition (once after upgrading to a portal with the usage page, or after a bulk load)."
    )

    def handle(self, *args, **options):
        rows = services.rebuild_level_rollup()
        self.stdout.write(f"level rollup rebuilt: {rows} team-minutes")
