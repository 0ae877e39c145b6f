"""Celery entry points of notifications. Thin: each calls one service."""

import logging
from datetime import timedelta

from celery import shared_task
from django.dispatch import receiver

from apps.notifications import services
from apps.notifications.delivery import DeliveryError

log = logging.getLogger(__name__)

# The sweep leaves fresh rows to the task scheduled on commit.
SWEEP_GRACE = timedelta(minutes=2)


@shared_task(
    soft_time_limit=30,
    autoretry_for=(DeliveryError,),
    retry_backoff=5,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=8,
)
def deliver_notification_task(notification_id: int) -> str:
    """Send one notification's pending channels; a retry sends only what is left."""
    return services.deliver(notification_id)


@receiver(services.notification_created)
def _queue_delivery(sender, notification_id: int, **_: object) -> None:
    try:
        deliver_notification_task.delay(notification_id)
    except Exception:  # broker down: the periodic sweep delivers it
        log.warning("could not queue notification %s; the sweep will send it", notification_id)


@shared_task(soft_time_limit=120)
def deliver_pending_notifications_task() -> int:
    """Queue delivery of rows whose task was lost (broker down at commit time)."""
    ids = services.undelivered_ids(older_than=SWEEP_GRACE)
    for notification_id in ids:
        deliver_notification_task.delay(notification_id)
    return len(ids)
