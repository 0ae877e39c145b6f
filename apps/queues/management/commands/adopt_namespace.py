"""``manage.py adopt_namespace``: let the reconciler take over an existing team namespace."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import User
from apps.queues import services
from core.errors import DomainError


class Command(BaseCommand):
    help = (
        "Adopt a team namespace that already exists on the cluster without the portal's "
        "label: from then on the reconciler labels it and creates the team's LocalQueues "
        "there. Audited with the reason given."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("namespace", help="a namespace some team already has")
        parser.add_argument("--reason", required=True, help="why, for the audit log")
        parser.add_argument(
            "--actor", help="platform admin recorded in the audit log (default: the first one)"
        )

    def handle(self, *args, namespace: str, reason: str, actor: str | None, **options) -> None:
        admins = User.objects.filter(is_platform_admin=True).order_by("pk")
        user = admins.filter(username=actor).first() if actor else admins.first()
        if user is None:
            raise CommandError("no such platform admin; create one or pass --actor")
        try:
            services.adopt_namespace(namespace=namespace, actor=user, reason=reason)
        except DomainError as exc:
            raise CommandError(exc.detail) from None
        self.stdout.write(f"adopted {namespace}; the next reconcile labels it")
