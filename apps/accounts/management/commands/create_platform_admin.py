"""``manage.py create_platform_admin alice``: the first platform admin (and any later one)."""

import getpass
import os
import sys

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import User
from apps.accounts.services import make_platform_admin
from core.errors import DomainError


class Command(BaseCommand):
    help = (
        "Make a user a platform admin, creating it if needed (password from a prompt or "
        "--password-env). Safe to run again: an existing admin is left as it is."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--password-env",
            metavar="VAR",
            help="read a new user's password from this environment variable (no prompt)",
        )

    def handle(self, *args, username: str, password_env: str | None, **options) -> None:
        password = None
        if not User.objects.filter(username=username.strip()).exists():
            password = self._password(password_env)
        try:
            user, changed = make_platform_admin(username, password=password, actor=None)
        except DomainError as exc:
            field = "--password-env" if exc.field == "password" and password_env else exc.field
            raise CommandError(f"{field}: {exc.detail}" if field else exc.detail) from None
        if changed:
            self.stdout.write(f"{user.get_username()} is now a platform admin.")
        else:
            self.stdout.write(
                f"{user.get_username()} was a platform admin already; nothing changed."
            )

    def _password(self, variable: str | None) -> str:
        if variable:
            value = os.environ.get(variable)
            if not value:
                raise CommandError(f"--password-env: environment variable {variable} is not set")
            return value
        if not sys.stdin.isatty():
            raise CommandError("password: no terminal to ask on; use --password-env VAR")
        first = getpass.getpass("Password: ")
        if first != getpass.getpass("Password (again): "):
            raise CommandError("password: the two passwords differ")
        return first
