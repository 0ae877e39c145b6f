"""Celery entry points of the quota domain. Thin: each calls one service."""

from celery import shared_task

from apps.queues import services


@shared_task(queue="default", soft_time_limit=60, ignore_result=False)
def expire_stale_change_requests_task() -> int:
    """Expire undecided change requests past their TTL; returns how many."""
    return services.expire_stale_change_requests()
