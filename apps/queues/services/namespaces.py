"""Admin writes to team namespaces on the cluster side: adopting an existing one."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from apps.queues import signals
from apps.queues.models import TeamNamespace
from apps.queues.services.catalog import _Errors, _require_admin
from core.audit import AuditAction, record_audit
from core.bounds import text_errors
from core.namespaces import protected_error

REASON_EXAMPLE = "made by hand before the portal; the team agreed to hand it over"


@transaction.atomic
def adopt_namespace(*, namespace: str, actor, reason: str) -> TeamNamespace:
    """Let the reconciler label a team namespace that exists on the cluster without our
    label, and write the team's LocalQueues in it. Adopting twice changes nothing."""
    _require_admin(actor)
    errors = _Errors()
    # Errors are keyed by the page's and the command's name for the input: ``namespace``.
    row = TeamNamespace.objects.select_for_update().filter(name=namespace).first()
    if not namespace.strip():
        errors.add("namespace", "give the team namespace to adopt, e.g. 'team-vision'")
    elif row is None:
        errors.add("namespace", f"no team has the namespace {namespace!r}; give it to a team first")
    elif problem := protected_error(namespace):
        errors.add("namespace", problem)
    if not reason.strip():
        errors.add("reason", f"say why the portal may take it over, e.g. {REASON_EXAMPLE!r}")
    errors.update(text_errors(reason=reason))
    errors.raise_if_any()
    if row.adopted_at is None:
        row.adopted_at = timezone.now()
        row.save(update_fields=["adopted_at"])
        record_audit(
            actor=actor,
            action=AuditAction.UPDATE,
            obj=row,
            team=row.team,
            before={"adopted": False},
            after={"adopted": True},
            reason=reason,
        )
        signals.policy_changed()
    return row
