from django.core.management.base import BaseCommand

from portal.demo import load_everything


class Command(BaseCommand):
    help = "Load the demo catalog, teams, queues, users and notebook pool (idempotent)."

    def handle(self, *args, **options) -> None:
        logins = load_everything()
        self.stdout.write("Demo logins:")
        for login in logins:
            self.stdout.write(f"  {login.username:<8} / {login.password:<18} ({login.role})")
