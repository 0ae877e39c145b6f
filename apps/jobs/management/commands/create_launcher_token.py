"""``manage.py create_launcher_token --user jupyterhub --name hub --teams vision,nlp``."""

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.management.commands.create_token import active_user
from apps.accounts.services import DEFAULT_DAYS
from apps.jobs.services import issue_launcher_token
from core.errors import DomainError


class Command(BaseCommand):
    help = (
        "Create a launcher token (it may request notebooks for members of the given teams) "
        "and print its secret (shown this once only). Revoke it with revoke_token."
    )

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="the launcher's service account")
        parser.add_argument("--name", required=True)
        parser.add_argument("--teams", required=True, help="comma-separated team slugs")
        parser.add_argument("--days", type=int, default=DEFAULT_DAYS, help="days until it expires")

    def handle(self, *args, user: str, name: str, teams: str, days: int, **options) -> None:
        slugs = [s.strip() for s in teams.split(",") if s.strip()]
        try:
            grant, raw = issue_launcher_token(active_user(user), name, slugs, actor=None, days=days)
        except DomainError as exc:
            raise CommandError(
                f"--{exc.field}: {exc.detail}" if exc.field else exc.detail
            ) from None
        token = grant.token
        self.stderr.write(
            f"launcher token {token.name!r} for {user} ({token.prefix}…) acting for teams "
            f"{', '.join(sorted(slugs))}, expires {token.expires_at:%Y-%m-%d %H:%M %Z}; "
            "the secret below is not shown again:"
        )
        self.stdout.write(raw)
