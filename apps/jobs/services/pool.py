"""Admin writes to the interactive pool and the allow-lists (images, profiles, templates, launchers)."""

from __future__ import annotations

from django.db import transaction
from django.forms.models import model_to_dict

from apps.queues import signals
from core import permissions
from core.audit import AuditAction, record_audit
from core.errors import NotAllowed


@transaction.atomic
def save_setting(obj, *, actor, created: bool) -> None:
    """Save one admin-owned row (pool, pool flavor, image, profile, template, tier limit, grant).

    The pool is quota policy too: a change schedules a reconcile after commit.
    """
    if not permissions.can_manage_catalog(actor):
        raise NotAllowed("only platform admins configure notebooks and jobs")
    obj.save()
    after = {k: str(v) for k, v in model_to_dict(obj).items()}
    action = AuditAction.CREATE if created else AuditAction.UPDATE
    record_audit(actor=actor, action=action, obj=obj, after=after)
    signals.policy_changed()


@transaction.atomic
def delete_setting(obj, *, actor) -> None:
    if not permissions.can_manage_catalog(actor):
        raise NotAllowed("only platform admins configure notebooks and jobs")
    record_audit(actor=actor, action=AuditAction.DELETE, obj=obj)
    obj.delete()
    signals.policy_changed()
