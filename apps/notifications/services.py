"""Writes of the notifications app: ``notify`` (the one entry point for every app),
delivery bookkeeping and preferences. What to say, and to whom, is each producer's own
business (``apps.queues.notices``, the jobs services): this app knows no other app's model.

``notify`` writes an outbox row in the caller's transaction and schedules the
delivery task on commit. If the broker is down the row stays undelivered and the
periodic ``deliver_pending_notifications_task`` sends it later: nothing depends on
a message that could be lost.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.dispatch import Signal
from django.utils import timezone

from apps.notifications import delivery, messages
from apps.notifications.choices import NotificationKind
from apps.notifications.models import Notification, NotificationPreference
from core.errors import NotAllowed, RuleBroken

log = logging.getLogger(__name__)

# Sent after commit for every new notification. ``apps.notifications.tasks`` queues
# its delivery (connected from the app's ready()), so this module never imports tasks.
notification_created = Signal()


def preference_for(user) -> NotificationPreference:
    """The user's preferences, or the defaults (unsaved) when they never chose."""
    return NotificationPreference.objects.filter(user=user).first() or NotificationPreference(
        user=user
    )


def notify(user, kind: str, context: dict, *, dedupe_key: str = "") -> Notification | None:
    """Tell ``user`` about ``kind``; returns the outbox row, or None when muted or a duplicate.

    Never raises into the caller's business transaction: a failure is logged and
    the caller's own write goes on (runs in a savepoint).
    """
    if kind not in NotificationKind.values:
        raise ValueError(f"unknown notification kind {kind!r}")
    if not preference_for(user).wants(kind):
        return None
    subject, body = messages.render(kind, context)
    try:
        with transaction.atomic():
            notification = Notification.objects.create(
                user=user,
                kind=kind,
                subject=subject,
                body=body,
                context=context,
                dedupe_key=dedupe_key,
            )
    except IntegrityError:
        return None  # already notified for this dedupe key
    transaction.on_commit(
        lambda: notification_created.send(Notification, notification_id=notification.pk)
    )
    return notification


def deliver(notification_id: int) -> str:
    """Send every channel not sent yet. Safe to run twice or concurrently (row lock).

    Raises ``delivery.DeliveryError`` for a temporary failure, after recording it;
    channels that went out stay marked, so a retry only sends what is left.
    """
    outcome, error = _deliver_locked(notification_id)
    if error:
        raise delivery.DeliveryError(error)
    return outcome


@transaction.atomic
def _deliver_locked(notification_id: int) -> tuple[str, str]:
    notification = (
        Notification.objects.select_for_update().select_related("user").filter(pk=notification_id)
    ).first()
    if notification is None or notification.delivered_at:
        return "nothing to do", ""
    preference = preference_for(notification.user)
    notification.attempts += 1
    problems: list[str] = []
    try:
        _send_email(notification, preference, problems)
        _send_webhook(notification, preference, problems)
    except delivery.DeliveryError as exc:
        notification.last_error = str(exc)
        notification.save(update_fields=["attempts", "last_error", *_SENT_FIELDS])
        return "retry", str(exc)
    notification.delivered_at = timezone.now()
    notification.last_error = "; ".join(problems)
    notification.save(update_fields=["attempts", "last_error", "delivered_at", *_SENT_FIELDS])
    return "delivered", ""


_SENT_FIELDS = ["email_sent_at", "webhook_sent_at"]


def _send_email(notification, preference, problems: list[str]) -> None:
    from core.observability.metrics import NOTIFICATION_FAILURES, NOTIFICATIONS_SENT

    if notification.email_sent_at or not preference.email_enabled:
        return
    if not notification.user.email:
        problems.append("no email address")
        return
    try:
        delivery.send_email(notification)
    except delivery.DeliveryError:
        NOTIFICATION_FAILURES.labels("email").inc()
        raise
    notification.email_sent_at = timezone.now()
    NOTIFICATIONS_SENT.labels("email", notification.kind).inc()


def _send_webhook(notification, preference, problems: list[str]) -> None:
    from core.observability.metrics import NOTIFICATION_FAILURES, NOTIFICATIONS_SENT

    if notification.webhook_sent_at or not preference.webhook_url:
        return
    try:
        problem = delivery.post_webhook(
            notification, preference.webhook_url, preference.webhook_format
        )
    except delivery.DeliveryError:
        NOTIFICATION_FAILURES.labels("webhook").inc()
        raise
    notification.webhook_sent_at = timezone.now()
    if problem:
        NOTIFICATION_FAILURES.labels("webhook").inc()
        problems.append(problem)
    else:
        NOTIFICATIONS_SENT.labels("webhook", notification.kind).inc()


def undelivered_ids(*, older_than: timedelta, limit: int = 500) -> list[int]:
    cutoff = timezone.now() - older_than
    rows = Notification.objects.filter(delivered_at=None, created_at__lt=cutoff)
    return list(rows.order_by("pk").values_list("pk", flat=True)[:limit])


@transaction.atomic
def save_preferences(
    user,
    *,
    actor,
    email_enabled: bool,
    webhook_url: str = "",
    webhook_format: str = "json",
    muted_kinds: list[str] | None = None,
) -> NotificationPreference:
    """Each user sets their own; platform admins may set anyone's."""
    if actor.pk != user.pk and not getattr(actor, "is_platform_admin", False):
        raise NotAllowed("only you (or a platform admin) may change your notifications")
    if webhook_url and not delivery.webhook_host_allowed(webhook_url):
        allowed = ", ".join(settings.WEBHOOK_ALLOWED_HOSTS) or "none (webhooks are disabled)"
        raise RuleBroken(
            f"this host is not allowed; allowed hosts: {allowed}",
            code="invalid",
            field="webhook_url",
        )
    unknown = set(muted_kinds or ()) - set(NotificationKind.values)
    if unknown:
        raise RuleBroken(
            f"unknown kinds: {', '.join(sorted(unknown))}", code="invalid", field="muted_kinds"
        )
    preference, _ = NotificationPreference.objects.select_for_update().get_or_create(user=user)
    preference.email_enabled = email_enabled
    preference.webhook_url = webhook_url
    preference.webhook_format = webhook_format
    preference.muted_kinds = sorted(set(muted_kinds or ()))
    preference.save()
    return preference


def portal_url(path: str) -> str:
    """``path`` as a link a message can carry (absolute when ``PORTAL_URL`` is set)."""
    return f"{settings.PORTAL_URL.rstrip('/')}{path}" if settings.PORTAL_URL else path
