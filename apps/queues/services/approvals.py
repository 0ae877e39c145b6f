"""Deciding change requests: approve (rebase, re-validate, apply), reject, withdraw, expire."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.queues import notices
from apps.queues.choices import ChangeRequestStatus
from apps.queues.models import ChangeRequest, Queue
from apps.queues.services.policy import (
    apply_policy,
    audit_capacity_override,
    load_catalog,
    lock_flavors,
    raise_on_findings,
)
from apps.queues.snapshots import apply_changes, queue_snapshot
from apps.queues.validation import validate_queue
from core import permissions
from core.audit import AuditAction, record_audit
from core.bounds import text_errors
from core.errors import InvalidInput, NotAllowed


def _lock_open_request(change_request: ChangeRequest) -> ChangeRequest:
    locked = (
        ChangeRequest.objects.select_for_update(of=("self",))
        .select_related("queue__team")
        .get(pk=change_request.pk)
    )
    if not locked.is_open:
        raise InvalidInput.single("status", f"this request is already {locked.status}")
    return locked


@transaction.atomic
def approve_change_request(
    change_request: ChangeRequest, *, actor, comment: str = "", capacity_override_reason: str = ""
) -> ChangeRequest:
    """Apply the requested changes on top of the queue as it is now.

    The lead's diff is rebased rather than their whole snapshot replayed, so an
    unrelated edit saved meanwhile is not silently reverted.
    """
    if not permissions.can_decide_change_request(actor):
        raise NotAllowed("only platform admins decide change requests")
    if problems := text_errors(comment=comment, capacity_override_reason=capacity_override_reason):
        raise InvalidInput(problems)
    request = _lock_open_request(change_request)
    queue = Queue.objects.select_for_update(of=("self",)).with_policy().get(pk=request.queue_id)
    current = queue_snapshot(queue)
    proposed = apply_changes(current, request.changes)
    lock_flavors(current, proposed)
    findings = validate_queue(proposed, load_catalog(excluding_queue=queue))
    raise_on_findings(findings, actor, capacity_override_reason)
    saved = apply_policy(
        queue, current, proposed, actor=actor, reason=request.reason, request=request
    )
    audit_capacity_override(queue, findings, actor, capacity_override_reason)
    _decide(request, ChangeRequestStatus.APPROVED, actor, comment, applied_version=saved["version"])
    record_audit(
        actor=actor,
        action=AuditAction.CHANGE_APPROVED,
        obj=queue,
        team=queue.team,
        changes=request.changes,
        reason=comment,
        change_request=request,
    )
    return request


@transaction.atomic
def reject_change_request(change_request: ChangeRequest, *, actor, comment: str) -> ChangeRequest:
    if not permissions.can_decide_change_request(actor):
        raise NotAllowed("only platform admins decide change requests")
    if not comment.strip():
        raise InvalidInput.single("comment", "a rejection needs a comment for the requester")
    if problems := text_errors(comment=comment):
        raise InvalidInput(problems)
    request = _lock_open_request(change_request)
    _decide(request, ChangeRequestStatus.REJECTED, actor, comment)
    _audit_decision(request, AuditAction.CHANGE_REJECTED, actor, comment)
    return request


@transaction.atomic
def withdraw_change_request(change_request: ChangeRequest, *, actor) -> ChangeRequest:
    if not permissions.can_withdraw_change_request(actor, change_request):
        raise NotAllowed(
            "only the person who filed this request may withdraw it; "
            "an admin who disagrees rejects it with a comment"
        )
    request = _lock_open_request(change_request)
    _decide(request, ChangeRequestStatus.WITHDRAWN, actor, "")
    _audit_decision(request, AuditAction.CHANGE_WITHDRAWN, actor, "")
    return request


@transaction.atomic
def expire_stale_change_requests(*, now: datetime | None = None) -> int:
    """Expire requests older than CHANGE_REQUEST_TTL_DAYS. Safe to run twice."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.CHANGE_REQUEST_TTL_DAYS)
    stale = ChangeRequest.objects.pending().filter(created_at__lt=cutoff)
    expired = 0
    for request in (
        stale.select_for_update(of=("self",)).select_related("queue__team").order_by("pk")
    ):
        _decide(request, ChangeRequestStatus.EXPIRED, None, "not decided in time")
        _audit_decision(request, AuditAction.CHANGE_EXPIRED, None, "not decided in time")
        expired += 1
    return expired


def _decide(request: ChangeRequest, status: str, actor, comment: str, applied_version=None) -> None:
    request.status = status
    request.decided_by = actor
    request.decided_at = timezone.now()
    request.decision_comment = comment
    request.applied_version = applied_version
    request.save(
        update_fields=["status", "decided_by", "decided_at", "decision_comment", "applied_version"]
    )
    # Stored with the decision; the email/webhook goes out after commit (on_commit task).
    notices.change_request_decided(request)


def _audit_decision(request: ChangeRequest, action: str, actor, comment: str) -> None:
    record_audit(
        actor=actor,
        action=action,
        obj=request.queue,
        team=request.queue.team,
        changes=request.changes,
        reason=comment,
        change_request=request,
    )
