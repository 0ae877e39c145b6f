from django.core.management.base import BaseCommand

from apps.queues.demo import load_demo


class Command(BaseCommand):
    help = "Load the demo catalog, teams, queues and users (idempotent)."

    def handle(self, *args, **options) -> None:
        logins = load_demo()
        self.stdout.write("Demo logins:")
        for login in logins:
            self.stdout.write(f"  {login.username:<8} / {login.password:<18} ({login.role})")
