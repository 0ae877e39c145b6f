"""Every periodic task in one table, each with the reason it runs."""

from datetime import timedelta

from django.conf import settings


def beat_schedule() -> dict:
    schedule = {
        # Change requests nobody decided on go stale; expire them so leads resubmit
        # against the current policy instead of an admin approving old numbers.
        "expire-stale-change-requests": {
            "task": "apps.queues.tasks.expire_stale_change_requests_task",
            "schedule": timedelta(hours=1),
            "options": {"expires": 30 * 60},
        },
    }
    if settings.QM_CLUSTER_SYNC:
        interval = settings.QM_RECONCILE_INTERVAL_SECONDS
        # Level-based repair: reverts out-of-band edits (kubectl edit), finishes
        # held deletions and catches any change whose triggered run was lost.
        # Expires after one interval: a backlog of stale runs would only repeat work.
        schedule["reconcile-kueue"] = {
            "task": "apps.queues.tasks.reconcile_task",
            "schedule": timedelta(seconds=interval),
            "kwargs": {"trigger": "schedule"},
            "options": {"expires": interval},
        }
    return schedule
