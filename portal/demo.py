"""The whole demo set-up, app by app, for `load_demo` and `seed_demo`."""

from apps.accounts.models import User
from apps.jobs.demo import load_jobs_demo
from apps.queues.demo import DemoLogin, load_demo


def load_everything() -> list[DemoLogin]:
    logins = load_demo()
    load_jobs_demo(User.objects.get(username="admin"))
    return logins
