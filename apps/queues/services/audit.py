"""Writing audit rows. Always called inside the transaction of the change it records."""

from __future__ import annotations

from typing import Any

from apps.queues.models import AuditEntry


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
) -> AuditEntry:
    return AuditEntry.objects.create(
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


def generic_diff(before: dict | None, after: dict | None) -> list[dict]:
    """Field diff for flat catalog objects (flavors, cohorts, tiers, teams)."""
    old, new = before or {}, after or {}
    return [
        {"field": key, "before": old.get(key), "after": new.get(key)}
        for key in sorted(set(old) | set(new))
        if old.get(key) != new.get(key)
    ]
