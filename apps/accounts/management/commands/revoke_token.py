"""``manage.py revoke_token --user alice --prefix Ab3dEf9h`` (or ``--name laptop``)."""

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import ApiToken
from apps.accounts.services import revoke_api_token


class Command(BaseCommand):
    help = "Revoke a user's API token (personal or launcher), named or by its prefix."

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True)
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--name", help="the token's name")
        which.add_argument("--prefix", help="the first characters of the secret, as listed")

    def handle(self, *args, user: str, name: str | None, prefix: str | None, **options) -> None:
        tokens = ApiToken.objects.filter(user__username=user, revoked_at__isnull=True)
        tokens = tokens.filter(name=name) if name else tokens.filter(prefix=prefix)
        found = list(tokens.select_related("user"))
        if not found:
            raise CommandError(f"{user} has no live token {name or prefix!r}")
        if len(found) > 1:
            prefixes = ", ".join(t.prefix for t in found)
            raise CommandError(f"several tokens match ({prefixes}): pass --prefix")
        revoke_api_token(found[0], actor=None, reason="manage.py revoke_token")
        self.stdout.write(f"revoked {found[0]}")
