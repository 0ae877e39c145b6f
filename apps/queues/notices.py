"""What the quota domain tells people, through ``apps.notifications``: a change request
filed (to the platform admins) or decided (to its requester), and a queue stuck out of sync
(to its team's leads and the admins). This app decides what to say and to whom; the
notifications app only stores and delivers it, and knows nothing of queues.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from apps.accounts.models import User
from apps.notifications.choices import NotificationKind
from apps.notifications.models import Notification
from apps.notifications.services import notify, portal_url
from apps.queues.reconcile.status import out_of_sync_since
from core.dates import format_when
from core.roles import TeamRole


def change_request_filed(change_request) -> int:
    """Tell every platform admin (but the requester) that a request waits for them;
    called by ``services.policy`` in the transaction that files it."""
    changes = "; ".join(
        f"{c['field']}: {c.get('before')} → {c.get('after')}" for c in change_request.changes
    )
    context = {
        "change_request": change_request.pk,
        "queue": change_request.queue.name,
        "team": getattr(change_request.queue.team, "slug", ""),
        "requested_by": change_request.requested_by.get_username(),
        "changes": changes,
        "beyond": "; ".join(str(b) for b in change_request.beyond_envelope),
        "reason": change_request.reason or "(none given)",
        "url": portal_url(f"/change-requests/{change_request.pk}/"),
    }
    admins = User.objects.filter(is_platform_admin=True, is_active=True).exclude(
        pk=change_request.requested_by_id
    )
    sent = [
        notify(
            admin,
            NotificationKind.CHANGE_REQUEST_FILED,
            context,
            dedupe_key=f"change-request-filed:{change_request.pk}",
        )
        for admin in admins.order_by("pk")
    ]
    return sum(n is not None for n in sent)


def change_request_decided(change_request) -> Notification | None:
    """Tell the requester; called by ``services.approvals`` in its transaction."""
    requester = change_request.requested_by
    if requester is None or requester.pk == getattr(change_request.decided_by, "pk", None):
        return None  # nobody to tell, or they withdrew it themselves
    return notify(
        requester,
        NotificationKind.CHANGE_REQUEST_DECIDED,
        {
            "change_request": change_request.pk,
            "queue": change_request.queue.name,
            "status": change_request.get_status_display().lower(),
            "decided_by": getattr(change_request.decided_by, "username", "the portal"),
            "comment": change_request.decision_comment,
            "url": portal_url(f"/change-requests/{change_request.pk}/"),
        },
        dedupe_key=f"change-request-decided:{change_request.pk}",
    )


def notify_out_of_sync_queues(*, now: datetime | None = None) -> int:
    """Queues out of sync for longer than QM_OUT_OF_SYNC_NOTIFY_MINUTES: tell their team
    leads and the platform admins, once per episode. Returns notifications created."""
    if not settings.QM_CLUSTER_SYNC:
        return 0
    now = now or timezone.now()
    threshold = timedelta(minutes=settings.OUT_OF_SYNC_NOTIFY_MINUTES)
    admins = list(User.objects.filter(is_platform_admin=True, is_active=True))
    created = 0
    for queue, state, since, message in out_of_sync_since():
        if now - since < threshold:
            continue
        leads = User.objects.filter(
            memberships__team_id=queue.team_id, memberships__role=TeamRole.LEAD, is_active=True
        )
        context = {
            "queue": queue.name,
            "state": state.replace("_", " "),
            "since": format_when(since),
            "minutes": int((now - since).total_seconds() // 60),
            "message": message,
            "url": portal_url(f"/queues/{queue.pk}/"),
        }
        key = f"out-of-sync:{queue.pk}:{int(since.timestamp())}"
        for user in {u.pk: u for u in [*leads, *admins]}.values():
            created += (
                notify(user, NotificationKind.QUEUE_OUT_OF_SYNC, context, dedupe_key=key)
                is not None
            )
    return created
