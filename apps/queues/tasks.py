"""Celery entry points of the quota domain. Thin: each calls one service."""

from celery import shared_task
from django.conf import settings

from apps.queues import notices, services
from apps.queues.reconcile.run import reconcile_exclusively
from core.kube import KubeError
from core.retrying import task_countdown


@shared_task(soft_time_limit=60, ignore_result=False)
def expire_stale_change_requests_task() -> int:
    """Expire undecided change requests past their TTL; returns how many."""
    return services.expire_stale_change_requests()


@shared_task(soft_time_limit=120)
def notify_out_of_sync_queues_task() -> int:
    """Tell leads and admins about queues out of sync past the threshold; returns how many."""
    return notices.notify_out_of_sync_queues()


# Waiting for another run to release the lock: one try a second, longer than a
# dead worker's lock can last (coordination.LOCK_TTL_SECONDS) and than a long run.
LOCK_WAIT_RETRIES = 600


@shared_task(bind=True, soft_time_limit=600, max_retries=12)
def reconcile_task(self, trigger: str = "schedule") -> dict:
    """Converge the cluster on the policy; safe to run twice, late, or concurrently.

    Runs after a policy change (``trigger="change"``) retry temporary failures with
    backoff; scheduled runs do not, the next one is their retry.
    """
    if not settings.QM_CLUSTER_SYNC:
        return {"skipped": "cluster sync disabled"}
    retrying = trigger != "schedule"
    try:
        summary = reconcile_exclusively(trigger=trigger)
    except KubeError as exc:
        if exc.transient and retrying:
            raise self.retry(countdown=task_countdown(self.request.retries), exc=exc) from None
        return {"error": exc.describe()}
    if summary is None:
        if not retrying:
            return {"skipped": "another reconcile is running"}
        # Someone else is mid-run and may have read the policy before our change.
        # (Celery reads max_retries=None as "the task's default", not "forever".)
        raise self.retry(countdown=1, max_retries=LOCK_WAIT_RETRIES)
    if summary.transient and retrying:
        raise self.retry(countdown=task_countdown(self.request.retries))
    return summary.as_dict()
