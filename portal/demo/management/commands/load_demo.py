from django.core.management.base import BaseCommand, CommandError

from portal.demo.logins import NEVER_LOADED, login_lines
from portal.demo.seeding import DemoRefused, seed_demo_once


def seed_or_explain(command: BaseCommand) -> bool:
    """Seed on first start and print the logins; True only if the demo was loaded now."""
    try:
        logins, marker = seed_demo_once()
    except DemoRefused as exc:
        raise CommandError(str(exc)) from None
    if marker is not None:
        command.stdout.write(f"nothing loaded: {marker}; everything is left as its users left it")
        if not marker.loaded:
            command.stdout.write(NEVER_LOADED)
        return False
    command.stdout.write("Demo logins:")
    for line in login_lines(logins):
        command.stdout.write(line)
    return True


class Command(BaseCommand):
    help = (
        "Load the demo catalog, teams, queues, users and notebook pool into a new database, "
        "once: later runs change nothing. Refused when QM_ENV=production."
    )

    def handle(self, *args, **options) -> None:
        seed_or_explain(self)
