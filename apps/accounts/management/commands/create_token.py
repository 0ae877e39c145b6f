"""``manage.py create_token --user alice --name laptop --days 30``: print a new token once."""

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import User
from apps.accounts.services import DEFAULT_DAYS, issue_api_token
from core.errors import DomainError


def active_user(username: str, *, option: str = "--user") -> User:
    user = User.objects.filter(username=username, is_active=True).first()
    if user is None:
        raise CommandError(f"{option}: no active user {username!r}")
    return user


class Command(BaseCommand):
    help = "Create a personal API token and print its secret (shown this once only)."

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="whose token it is")
        parser.add_argument("--name", required=True, help="what it is for, e.g. laptop")
        parser.add_argument("--days", type=int, default=DEFAULT_DAYS, help="days until it expires")

    def handle(self, *args, user: str, name: str, days: int, **options) -> None:
        try:
            token, raw = issue_api_token(active_user(user), name, actor=None, days=days)
        except DomainError as exc:
            raise CommandError(
                f"--{exc.field}: {exc.detail}" if exc.field else exc.detail
            ) from None
        self.stderr.write(
            f"token {token.name!r} for {user} ({token.prefix}…), expires "
            f"{token.expires_at:%Y-%m-%d %H:%M %Z}; the secret below is not shown again:"
        )
        self.stdout.write(raw)
