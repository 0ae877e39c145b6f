"""The audit trail's interface: ``record_audit`` writes one row, in the transaction of
the change it records; every service of every app calls it.

The rows live in ``apps.queues``' ``AuditEntry`` (its foreign keys point at teams and
change requests, which are that app's), so the model stays there and tells this layer
about itself from ``AppConfig.ready()``: ``use_audit_model``. Apps whose audited objects
are private (a notebook) say who may read those rows the same way:
``register_private_audit_subject``. The actions are here too (``AuditAction``), so an app
that audits (accounts, jobs) needs nothing of ``apps.queues``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import models


class AuditAction(models.TextChoices):
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"
    CHANGE_REQUESTED = "change_requested"
    CHANGE_APPROVED = "change_approved"
    CHANGE_REJECTED = "change_rejected"
    CHANGE_WITHDRAWN = "change_withdrawn"
    CHANGE_EXPIRED = "change_expired"
    CAPACITY_OVERRIDE = "capacity_override"
    DRIFT_REPAIRED = "drift_repaired"
    LOGIN_LOCKOUT = "login_lockout"


# object_type -> the ids (as text, like ``AuditEntry.object_id``) of such objects a user
# may see; ``AuditEntry.objects.visible_to`` applies them.
AuditSubjectIds = Callable[[Any], models.QuerySet]
_PRIVATE_SUBJECTS: dict[str, AuditSubjectIds] = {}
_MODEL: list[type[models.Model]] = []


def use_audit_model(model: type[models.Model]) -> None:
    _MODEL[:] = [model]


def register_private_audit_subject(object_type: str, visible_ids: AuditSubjectIds) -> None:
    _PRIVATE_SUBJECTS[object_type] = visible_ids


def private_audit_subjects() -> dict[str, AuditSubjectIds]:
    return dict(_PRIVATE_SUBJECTS)


def actor_name(actor) -> str:
    return actor.get_username() if actor is not None else "system"


def record_audit(
    *,
    actor,
    action: str,
    obj,
    team=None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    changes: list[dict] | None = None,
    reason: str = "",
    change_request=None,
) -> models.Model:
    return _write_row(
        actor=actor,
        actor_name=actor_name(actor),
        action=action,
        team=team,
        object_type=obj._meta.model_name,
        object_id=str(obj.pk),
        object_repr=str(obj)[:300],
        before=before,
        after=after,
        changes=changes if changes is not None else generic_diff(before, after),
        reason=reason,
        change_request=change_request,
    )


def record_anonymous_audit(
    *, action: str, subject_type: str, subject_id: str, subject: str, after: dict, reason: str
) -> models.Model:
    """A row about something no one signed in did, to no object of ours (a sign-in
    lockout: written whether or not the username names an account, so it reads the same
    either way). No team: only platform admins read it."""
    return _write_row(
        actor=None,
        actor_name="anonymous",
        action=action,
        object_type=subject_type,
        object_id=subject_id[:64],
        object_repr=subject[:300],
        after=after,
        changes=[],
        reason=reason,
    )


def _write_row(**fields) -> models.Model:
    if not _MODEL:
        raise RuntimeError("no audit model: apps.queues is not installed")
    return _MODEL[0].objects.create(**fields)


def generic_diff(before: dict | None, after: dict | None) -> list[dict]:
    """Field diff for flat catalog objects (flavors, cohorts, tiers, teams)."""
    old, new = before or {}, after or {}
    return [
        {"field": key, "before": old.get(key), "after": new.get(key)}
        for key in sorted(set(old) | set(new))
        if old.get(key) != new.get(key)
    ]
