"""Every periodic task in one table, each with the reason it runs."""

from datetime import timedelta


def beat_schedule() -> dict:
    return {
        # Change requests nobody decided on go stale; expire them so leads resubmit
        # against the current policy instead of an admin approving old numbers.
        "expire-stale-change-requests": {
            "task": "apps.queues.tasks.expire_stale_change_requests_task",
            "schedule": timedelta(hours=1),
            "options": {"expires": 30 * 60},
        },
    }
