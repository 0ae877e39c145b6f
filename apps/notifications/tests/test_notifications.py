"""Notifications: stored with the business change, delivered by a task after commit,
by email (locmem) and by webhook (a real HTTP server on 127.0.0.1), once."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core import mail
from django.utils import timezone

from apps.notifications import services
from apps.notifications.choices import NotificationKind
from apps.notifications.delivery import DeliveryError
from apps.notifications.models import Notification
from apps.notifications.tasks import deliver_notification_task, deliver_pending_notifications_task
from apps.queues import notices
from apps.queues import services as queue_services
from apps.queues.choices import SyncState
from apps.queues.models import SyncObject
from core.dates import format_when
from core.errors import NotAllowed, RuleBroken
from testkit.factories import quota, set_policy

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]


class Receiver:
    """A webhook endpoint: records JSON bodies, answers the queued status codes."""

    def __init__(self):
        self.bodies: list[dict] = []
        self.statuses: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers["Content-Length"])
                receiver.bodies.append(json.loads(self.rfile.read(length)))
                self.send_response(receiver.statuses.pop(0) if receiver.statuses else 200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"

    def close(self):
        self.server.shutdown()


@pytest.fixture
def receiver():
    hook = Receiver()
    yield hook
    hook.close()


def _deliver_all():
    for pk in Notification.objects.filter(delivered_at=None).values_list("pk", flat=True):
        deliver_notification_task.apply(args=[pk])


def test_a_decided_change_request_emails_the_requester_after_commit(
    queue, lead, admin, envelope, django_capture_on_commit_callbacks
):
    lead.email = "lead@example.org"
    lead.save()
    request = set_policy(queue, lead, quotas=[quota("h100", "40")]).change_request
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        queue_services.reject_change_request(request, actor=admin, comment="not this quarter")
    notification = Notification.objects.get(user=lead)
    assert notification.kind == NotificationKind.CHANGE_REQUEST_DECIDED
    assert callbacks and mail.outbox == []  # nothing is sent inside the request
    _deliver_all()
    (message,) = mail.outbox
    assert message.to == ["lead@example.org"] and "rejected" in message.subject
    assert "not this quarter" in message.body


def test_a_webhook_gets_a_slack_compatible_payload(lead, receiver):
    services.save_preferences(
        lead, actor=lead, email_enabled=False, webhook_url=receiver.url, webhook_format="slack"
    )
    services.notify(lead, NotificationKind.JOB_PREEMPTED, {"job": "train-1", "queue": "vision"})
    _deliver_all()
    (body,) = receiver.bodies
    assert set(body) == {"text"} and "train-1" in body["text"]
    assert mail.outbox == []


def test_a_failing_webhook_is_retried_without_resending_the_email(lead, receiver):
    lead.email = "lead@example.org"
    lead.save()
    services.save_preferences(lead, actor=lead, email_enabled=True, webhook_url=receiver.url)
    receiver.statuses = [503]
    notification = services.notify(lead, NotificationKind.NOTEBOOK_EXPIRING, {"notebook": "nb"})
    with pytest.raises(DeliveryError):
        services.deliver(notification.pk)
    assert services.deliver(notification.pk) == "delivered"
    assert len(mail.outbox) == 1 and len(receiver.bodies) == 2
    notification.refresh_from_db()
    assert notification.attempts == 2 and notification.delivered_at
    assert receiver.bodies[1]["kind"] == "notebook_expiring"


def test_muted_kinds_and_duplicates_create_nothing(lead):
    services.save_preferences(
        lead, actor=lead, email_enabled=True, muted_kinds=[NotificationKind.JOB_PREEMPTED]
    )
    assert services.notify(lead, NotificationKind.JOB_PREEMPTED, {}) is None
    first = services.notify(lead, NotificationKind.NOTEBOOK_EXPIRING, {}, dedupe_key="nb:1")
    again = services.notify(lead, NotificationKind.NOTEBOOK_EXPIRING, {}, dedupe_key="nb:1")
    assert first is not None and again is None
    assert Notification.objects.count() == 1


def test_webhooks_only_go_to_allowed_hosts(lead, settings):
    settings.WEBHOOK_ALLOWED_HOSTS = [".example.org"]
    for url in ("http://10.0.0.1/x", "http://kubernetes.default.svc/x", "file:///etc/passwd"):
        with pytest.raises(RuleBroken):
            services.save_preferences(lead, actor=lead, email_enabled=True, webhook_url=url)
    services.save_preferences(
        lead, actor=lead, email_enabled=True, webhook_url="https://hooks.example.org/q"
    )


def test_nobody_edits_someone_elses_preferences(lead, scientist):
    with pytest.raises(NotAllowed):
        services.save_preferences(lead, actor=scientist, email_enabled=False)


def test_a_queue_out_of_sync_past_the_threshold_tells_leads_and_admins_once(
    queue, lead, admin, settings
):
    settings.QM_CLUSTER_SYNC, settings.OUT_OF_SYNC_NOTIFY_MINUTES = True, 30
    long_ago = timezone.now() - timedelta(hours=2)
    SyncObject.objects.create(
        kind="ClusterQueue",
        name=queue.name,
        queue=queue,
        state=SyncState.ERROR,
        message="admission webhook denied",
        policy_version=queue.version,
        updated_at=long_ago,
    )
    assert notices.notify_out_of_sync_queues() == 2
    assert notices.notify_out_of_sync_queues() == 0  # same episode
    notified = set(Notification.objects.values_list("user__username", flat=True))
    assert notified == {lead.username, admin.username}
    body = Notification.objects.first().body
    assert "admission webhook denied" in body
    assert f"since {format_when(long_ago)}:" in body  # as pages write times, zone shown


def test_a_queue_out_of_sync_briefly_tells_nobody(queue, lead, settings):
    settings.QM_CLUSTER_SYNC = True
    assert notices.notify_out_of_sync_queues() == 0  # pending since its creation just now


def test_the_sweep_delivers_what_a_lost_task_left_behind(lead, settings):
    lead.email = "lead@example.org"
    lead.save()
    notification = services.notify(lead, NotificationKind.JOB_PREEMPTED, {"job": "j"})
    Notification.objects.filter(pk=notification.pk).update(
        created_at=timezone.now() - timedelta(minutes=10)
    )
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from portal.celery import app

    app.conf.task_always_eager = True
    try:
        assert deliver_pending_notifications_task.apply().get() == 1
    finally:
        app.conf.task_always_eager = False
    assert len(mail.outbox) == 1


def test_the_preferences_page_saves_and_explains_refusals(client, lead, settings):
    client.force_login(lead)
    response = client.post(
        "/notifications/",
        {"email_enabled": "on", "webhook_url": "http://10.1.2.3/x", "webhook_format": "json"},
    )
    assert response.status_code == 200 and "not allowed" in response.content.decode()
    response = client.post(
        "/notifications/",
        {
            "webhook_url": "http://127.0.0.1:9/x",
            "webhook_format": "json",
            "muted_kinds": ["job_preempted"],
        },
    )
    assert response.status_code == 302
    preference = services.preference_for(lead)
    assert not preference.email_enabled and preference.muted_kinds == ["job_preempted"]
