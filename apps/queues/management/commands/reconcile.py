"""``manage.py reconcile``: converge the cluster once, or show what that would do."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.queues.reconcile.run import compute_plan, reconcile
from apps.queues.reconcile.yamldiff import plan_diff
from core.kube import KubeClient, KubeError


class Command(BaseCommand):
    help = "Reconcile quota policy into Kueue objects (--once) or print the plan (--dry-run)."

    def add_arguments(self, parser) -> None:
        mode = parser.add_mutually_exclusive_group(required=True)
        mode.add_argument("--once", action="store_true", help="apply and print a JSON summary")
        mode.add_argument("--dry-run", action="store_true", help="print the plan as a YAML diff")

    def handle(self, *args, once: bool, dry_run: bool, **options) -> None:
        if not settings.QM_CLUSTER_SYNC:
            raise CommandError("cluster sync is disabled (QM_CLUSTER_SYNC=false)")
        try:
            if dry_run:
                with KubeClient() as kube:
                    diff = plan_diff(compute_plan(kube), settings.KUEUE_API_VERSION)
                self.stdout.write(diff or "# nothing to do: the cluster matches the policy")
                return
            summary = reconcile(trigger="command")
        except KubeError as exc:
            raise CommandError(exc.describe()) from None
        self.stdout.write(json.dumps(summary.as_dict(), indent=2))
