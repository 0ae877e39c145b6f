"""The whole demo set-up, app by app, for `load_demo` and `seed_demo`.

``seed_demo_once`` is what start-up calls: it loads the demo into a database the first
time only and records that (``DemoSeed``), so restarting ``make run`` never changes
anything a user did.
"""

from __future__ import annotations

from django.db import transaction

from apps.accounts.models import User
from apps.queues.models import DemoSeed
from portal.demo.logins import DemoLogin
from portal.demo.notebooks import load_jobs_demo
from portal.demo.policy import DemoRefused, load_demo, refuse_in_production

__all__ = ["DemoRefused", "load_everything", "seed_demo_once"]


def load_everything() -> list[DemoLogin]:
    logins = load_demo()
    load_jobs_demo(User.objects.get(username="admin"))
    return logins


@transaction.atomic
def seed_demo_once() -> tuple[list[DemoLogin], DemoSeed | None]:
    """Load the demo on first start; on every later start return ``([], marker)`` and write
    nothing. A database that already has users but no marker (it predates the marker, or
    was set up by hand) is marked as in use and left alone too."""
    refuse_in_production()
    marker = DemoSeed.objects.first()
    if marker is not None:
        return [], marker
    if User.objects.exists():
        return [], DemoSeed.objects.create(loaded=False)
    logins = load_everything()
    # Two first starts at once: the second's insert hits the unique key and rolls back.
    DemoSeed.objects.create()
    return logins, None
