"""A filed change request tells every platform admin: in the portal and by their channel."""

from __future__ import annotations

import pytest
from django.core import mail

from apps.notifications import services
from apps.notifications.choices import NotificationKind
from apps.notifications.models import Notification
from apps.notifications.tasks import deliver_notification_task
from testkit.factories import UserFactory, quota, set_policy

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def test_admins_are_told_in_the_portal_and_by_email_after_commit(
    client, queue, lead, admin, envelope, django_capture_on_commit_callbacks
):
    admin.email = "admin@example.org"
    admin.save()
    second = UserFactory(username="root2", is_platform_admin=True, email="root2@example.org")
    services.save_preferences(second, actor=second, email_enabled=False)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        request = set_policy(
            queue, lead, reason="deadline", quotas=[quota("h100", "40")]
        ).change_request
    assert callbacks and mail.outbox == []  # nothing is sent inside the lead's save
    filed = Notification.objects.filter(kind=NotificationKind.CHANGE_REQUEST_FILED)
    assert sorted(filed.values_list("user__username", flat=True)) == ["root", "root2"]
    assert not filed.filter(user=lead).exists()
    for pk in filed.values_list("pk", flat=True):
        deliver_notification_task.apply(args=[pk])
    (message,) = mail.outbox  # root2 chose no email
    assert message.to == ["admin@example.org"]
    assert f"#{request.pk}" in message.subject and "deadline" in message.body
    assert f"/change-requests/{request.pk}/" in message.body
    client.force_login(second)
    page = client.get("/notifications/").content.decode()
    assert f"Change request #{request.pk} for queue vision waits for approval" in page


def test_an_admin_who_muted_the_kind_is_not_told(queue, lead, admin, envelope):
    services.save_preferences(
        admin, actor=admin, email_enabled=True, muted_kinds=[NotificationKind.CHANGE_REQUEST_FILED]
    )
    set_policy(queue, lead, quotas=[quota("h100", "40")])
    assert not Notification.objects.filter(kind=NotificationKind.CHANGE_REQUEST_FILED).exists()
