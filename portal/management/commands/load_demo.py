from django.core.management.base import BaseCommand, CommandError

from portal.demo import DemoRefused, seed_demo_once


def seed_or_explain(command: BaseCommand) -> bool:
    """Seed on first start and print the logins; True only if the demo was loaded now."""
    try:
        logins, marker = seed_demo_once()
    except DemoRefused as exc:
        raise CommandError(str(exc)) from None
    if marker is not None:
        command.stdout.write(f"nothing loaded: {marker}; everything is left as its users left it")
        return False
    command.stdout.write("Demo logins:")
    for login in logins:
        command.stdout.write(f"  {login.username:<8} / {login.password:<18} ({login.role})")
    return True


class Command(BaseCommand):
    help = (
        "Load the demo catalog, teams, queues, users and notebook pool into a new database, "
        "once: later runs change nothing. Refused when QM_ENV=production."
    )

    def handle(self, *args, **options) -> None:
        seed_or_explain(self)
