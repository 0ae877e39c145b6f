"""Beat names its tasks by string (Celery's wire format); every name must be a task the
worker registers, so renaming a task cannot silently stop its schedule."""

from __future__ import annotations

from portal.celery import app
from portal.schedule import beat_schedule


def test_every_beat_entry_names_a_registered_task(settings):
    # Switch on every optional entry, so none escapes the check.
    settings.QM_CLUSTER_SYNC = True
    settings.QM_HISTORY_RECORDER = True
    settings.QM_JOBS_WATCH = True
    app.loader.import_default_modules()  # autodiscovery: every app's tasks module
    registered = set(app.tasks)
    entries = beat_schedule()
    assert "informer" in entries
    unknown = {name: e["task"] for name, e in entries.items() if e["task"] not in registered}
    assert unknown == {}
