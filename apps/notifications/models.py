"""Per-user notification preferences and the outbox of notifications to deliver."""

from django.conf import settings
from django.db import models

from apps.notifications.choices import NotificationKind, WebhookFormat


class NotificationPreference(models.Model):
    """How one user wants to hear about things. No row means: email on, no webhook."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preference"
    )
    email_enabled = models.BooleanField(default=True)
    webhook_url = models.URLField(blank=True, max_length=500)
    webhook_format = models.CharField(
        max_length=10, choices=WebhookFormat.choices, default=WebhookFormat.JSON
    )
    # Kinds the user does not want at all (on any channel).
    muted_kinds = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"notification preferences of {self.user}"

    def wants(self, kind: str) -> bool:
        return kind not in self.muted_kinds


class Notification(models.Model):
    """One message to one user; delivered by a Celery task, channel by channel.

    A channel's ``*_sent_at`` is set once it went out, so a retried or repeated
    delivery task never sends twice; ``dedupe_key`` makes ``notify`` itself
    idempotent (one notification per queue out-of-sync episode, per decision…).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=40, choices=NotificationKind.choices)
    subject = models.CharField(max_length=200)
    body = models.TextField()
    context = models.JSONField(default=dict, blank=True)
    dedupe_key = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    email_sent_at = models.DateTimeField(null=True, blank=True)
    webhook_sent_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "dedupe_key"],
                condition=~models.Q(dedupe_key=""),
                name="one_notification_per_dedupe_key",
            )
        ]
        indexes = [models.Index(fields=["delivered_at", "created_at"])]

    def __str__(self) -> str:
        return f"{self.kind} to {self.user}"
