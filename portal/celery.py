"""The Celery application. Beat entries live in ``portal.schedule``."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

app = Celery("quartermaster")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

from portal import checks as _checks  # noqa: E402,F401  registers the start-up checks
from portal.observability import celery_signals  # noqa: E402,F401  connects the receivers


@app.on_after_finalize.connect
def _install_beat_schedule(sender: Celery, **_: object) -> None:
    from portal.schedule import beat_schedule

    sender.conf.beat_schedule = beat_schedule()
