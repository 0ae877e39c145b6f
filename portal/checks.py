"""Start-up checks of the Celery settings, run by ``manage.py check`` and ``migrate``
(the web container's start) and by every worker as it starts.

A message a worker took but never acknowledged is handed to another worker after
the broker's visibility timeout, even while the first is still running it: a
timeout shorter than a task's time limit runs that task twice at once.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping

from celery import current_app, signals
from django.conf import settings
from django.core import checks

TAG = "celery"
log = logging.getLogger(__name__)

# Settings that were replaced: one still set would otherwise be ignored without a word.
RETIRED_SETTINGS = {
    "QM_WHATIF_STUCK_AFTER_SECONDS": (
        "QM_WHATIF_HEARTBEAT_MISSES: a replay is failed as stuck after (misses + 1) x "
        "QM_WHATIF_HEARTBEAT_SECONDS"
    ),
}


def longest_time_limit(tasks: dict, *, hard: float | None, soft: float | None):
    """``(seconds, what)`` of the longest time limit any task has, or None without limits.

    A task's own ``time_limit``/``soft_time_limit`` wins over the global
    CELERY_TASK_TIME_LIMIT/CELERY_TASK_SOFT_TIME_LIMIT, as in Celery.
    """
    limits = []
    for name, task in tasks.items():
        if name.startswith("celery."):
            continue  # Celery's own (chord unlock, backend cleanup): no limits of ours
        for attr, default, setting in (
            ("time_limit", hard, "CELERY_TASK_TIME_LIMIT"),
            ("soft_time_limit", soft, "CELERY_TASK_SOFT_TIME_LIMIT"),
        ):
            own = getattr(task, attr, None)
            if own is not None:
                limits.append((own, f"{name} {attr}={own:g}"))
            elif default is not None:
                limits.append((default, f"{setting}={default:g}"))
    return max(limits, key=lambda limit: limit[0]) if limits else None


def visibility_timeout_errors(visibility_timeout: float | None, longest) -> list[checks.Error]:
    if visibility_timeout is None or longest is None or visibility_timeout > longest[0]:
        return []
    return [
        checks.Error(
            f"QM_BROKER_VISIBILITY_TIMEOUT_SECONDS={visibility_timeout:g} is not greater "
            f"than the longest task time limit ({longest[1]}): a task still running "
            "would be handed to a second worker.",
            hint="Raise QM_BROKER_VISIBILITY_TIMEOUT_SECONDS above that limit.",
            id="quartermaster.E001",
        )
    ]


def heartbeat_errors(misses: int, seconds: float) -> list[checks.Error]:
    errors = []
    # Three missed beats, not one: a busy database or a GC pause may delay a stamp.
    if misses < 3:
        errors.append(
            checks.Error(
                f"QM_WHATIF_HEARTBEAT_MISSES={misses} is below 3: live what-if runs whose "
                "heartbeat is late once would be failed as stuck.",
                hint="Set QM_WHATIF_HEARTBEAT_MISSES=3 or more (default 5).",
                id="quartermaster.E002",
            )
        )
    # It is also the sweep's interval in the beat table: 0 would fail every live run at
    # once and have beat send sweeps without pause.
    if seconds <= 0:
        errors.append(
            checks.Error(
                f"QM_WHATIF_HEARTBEAT_SECONDS={seconds:g} is not above 0.",
                hint="Set a number of seconds above 0, e.g. QM_WHATIF_HEARTBEAT_SECONDS=10 "
                "(the default).",
                id="quartermaster.E004",
            )
        )
    return errors


def retired_setting_errors(environ: Mapping[str, str]) -> list[checks.Error]:
    return [
        checks.Error(
            f"{name} is no longer read.",
            hint=f"Remove it; use {replacement}.",
            id="quartermaster.E003",
        )
        for name, replacement in RETIRED_SETTINGS.items()
        if name in environ
    ]


@checks.register(TAG)
def check_celery_settings(**_: object) -> list[checks.Error]:
    # The project's app (portal.celery, which imports this module to register it).
    app = current_app._get_current_object()
    # Every tasks module, so every limit is seen. Not import_default_modules(): in a
    # worker that runs the checks again (Celery's Django fixup) and recurses.
    app.autodiscover_tasks(force=True)
    longest = longest_time_limit(
        dict(app.tasks),
        hard=getattr(settings, "CELERY_TASK_TIME_LIMIT", None),
        soft=getattr(settings, "CELERY_TASK_SOFT_TIME_LIMIT", None),
    )
    # Only Redis has a visibility timeout; the embedded filesystem broker has none.
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("visibility_timeout")
    return (
        visibility_timeout_errors(visibility, longest)
        + heartbeat_errors(
            settings.QM_WHATIF_HEARTBEAT_MISSES, settings.QM_WHATIF_HEARTBEAT_SECONDS
        )
        + retired_setting_errors(os.environ)
    )


@signals.worker_init.connect
def _refuse_bad_settings(**_: object) -> None:
    """Workers run no ``manage.py`` command, so they run the checks themselves."""
    errors = [e for e in checks.run_checks(tags=[TAG]) if e.is_serious()]
    if errors:
        log.critical("refusing to start: %s", "; ".join(str(e) for e in errors))
        # Not an exception: Celery logs those from signal handlers and starts anyway.
        sys.exit(1)
