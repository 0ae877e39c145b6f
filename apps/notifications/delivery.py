"""Sending one notification by email and by webhook. The only place that does I/O."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import send_mail

from apps.notifications.choices import WebhookFormat
from apps.notifications.models import Notification
from core.dates import iso_z


class DeliveryError(Exception):
    """A temporary failure (SMTP or webhook unreachable, 5xx): retry later."""


def webhook_host_allowed(url: str) -> bool:
    """Only hosts listed in QM_WEBHOOK_ALLOWED_HOSTS (``.example.org`` matches subdomains):
    the portal must not become a way to POST into the cluster's internal network."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        return False
    for allowed in settings.WEBHOOK_ALLOWED_HOSTS:
        allowed = allowed.lower()
        if host == allowed.lstrip(".") or (allowed.startswith(".") and host.endswith(allowed)):
            return True
    return False


def send_email(notification: Notification) -> None:
    try:
        send_mail(
            notification.subject,
            notification.body,
            settings.DEFAULT_FROM_EMAIL,
            [notification.user.email],
            fail_silently=False,
        )
    except OSError as exc:  # smtplib's errors are OSErrors
        raise DeliveryError(f"email: {exc}") from exc


def payload(notification: Notification, style: str) -> dict:
    if style == WebhookFormat.SLACK:
        # Slack and Microsoft Teams incoming webhooks both accept {"text": …}.
        return {"text": f"*{notification.subject}*\n{notification.body}"}
    return {
        "kind": notification.kind,
        "subject": notification.subject,
        "text": notification.body,
        "user": notification.user.get_username(),
        "context": notification.context,
        "created_at": iso_z(notification.created_at),
    }


def post_webhook(notification: Notification, url: str, style: str) -> str:
    """Post it; returns a permanent problem (not retried) or ''. Raises DeliveryError."""
    if not webhook_host_allowed(url):
        return "webhook host no longer allowed (QM_WEBHOOK_ALLOWED_HOSTS)"
    request = urllib.request.Request(
        url,
        data=json.dumps(payload(notification, style)).encode(),
        headers={"Content-Type": "application/json", "User-Agent": "quartermaster"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=settings.WEBHOOK_TIMEOUT_SECONDS) as reply:
            reply.read(1024)
    except urllib.error.HTTPError as exc:
        if exc.code >= 500 or exc.code == 429:
            raise DeliveryError(f"webhook: HTTP {exc.code}") from exc
        return f"webhook: HTTP {exc.code}"  # the URL is wrong; retrying cannot help
    except (urllib.error.URLError, OSError) as exc:
        raise DeliveryError(f"webhook: {exc}") from exc
    return ""
