"""Tell a user something: the one call other apps make (``apps.notifications`` does the rest).

    from portal.notify import notify, NotificationKind

    notify(job.owner, NotificationKind.JOB_PREEMPTED,
           {"job": job.name, "queue": queue.name, "preempted_by": "team-nlp/train-7",
            "reason": "reclaimed within cohort", "lost": "40 min", "url": job_url},
           dedupe_key=f"preempted:{job.pk}:{attempt}")

Call it inside the service's transaction: the notification is stored with the
business change and sent by a Celery task after commit (email and/or webhook,
per the user's preferences), with retries, never blocking the request.
"""

from apps.notifications.choices import NotificationKind
from apps.notifications.services import notify

__all__ = ["NotificationKind", "notify"]
