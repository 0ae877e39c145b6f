"""``manage.py import_kueue``: adopt an existing cluster's Kueue objects as portal policy."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import User
from apps.queues.reconcile.brownfield import import_from_cluster
from core.errors import InvalidInput
from core.kube import KubeError


def refusal(exc: InvalidInput) -> str:
    lines = [f"{where}: {'; '.join(rules)}" for where, rules in exc.errors.items()]
    return "nothing imported; the cluster holds values the portal cannot read:\n" + "\n".join(lines)


class Command(BaseCommand):
    help = (
        "Read ResourceFlavors, Cohorts, ClusterQueues, LocalQueues and WorkloadPriorityClasses "
        "into portal policy (validated and audited). Prints what was imported and what the "
        "portal cannot represent."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--take-ownership",
            action="store_true",
            help="label the imported objects so the reconciler manages them from now on",
        )
        parser.add_argument(
            "--actor", help="platform admin recorded in the audit log (default: the first one)"
        )

    def handle(self, *args, take_ownership: bool, actor: str | None, **options) -> None:
        admins = User.objects.filter(is_platform_admin=True).order_by("pk")
        user = admins.filter(username=actor).first() if actor else admins.first()
        if user is None:
            raise CommandError("no such platform admin; create one or pass --actor")
        try:
            plan, problems = import_from_cluster(
                actor=user, take_ownership_of_objects=take_ownership
            )
        except KubeError as exc:
            raise CommandError(exc.describe()) from None
        except InvalidInput as exc:
            raise CommandError(refusal(exc)) from None
        report = {**plan.as_dict(), "failed": problems, "took_ownership": take_ownership}
        self.stdout.write(json.dumps(report, indent=2))
