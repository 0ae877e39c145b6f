"""Admin writes to the interactive pool and the allow-lists (images, profiles, templates, launchers)."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.forms.models import model_to_dict

from apps.jobs.models import InteractivePool, PoolFlavor, RoleTierLimit
from apps.queues import signals
from apps.queues.capacity import load_capacity, load_holders
from apps.queues.quantity import format_units
from apps.queues.reservations import reserved_per_flavor, room_left
from core import permissions
from core.audit import AuditAction, record_audit
from core.errors import InvalidInput, NotAllowed


@transaction.atomic
def save_setting(obj, *, actor, created: bool) -> None:
    """Save one admin-owned row (pool, pool flavor, image, profile, template, tier limit, grant).

    The pool is quota policy too: a change schedules a reconcile after commit.
    """
    if not permissions.can_manage_catalog(actor):
        raise NotAllowed("only platform admins configure notebooks and jobs")
    if isinstance(obj, PoolFlavor) and (problem := pool_capacity_error(obj)):
        raise InvalidInput.single("gpus", problem)
    if problem := inference_tier_error(obj):
        raise InvalidInput.single(*problem)
    obj.save()
    after = {k: str(v) for k, v in model_to_dict(obj).items()}
    action = AuditAction.CREATE if created else AuditAction.UPDATE
    record_audit(actor=actor, action=action, obj=obj, after=after)
    signals.policy_changed()


def inference_tier_error(obj) -> tuple[str, str] | None:
    """(field, why) when the pool's notebooks or a role's batch jobs would get a tier that
    only inference services may use (docs/inference.md)."""
    fields = {InteractivePool: "priority_tier", RoleTierLimit: "max_tier"}
    field = next((f for kind, f in fields.items() if isinstance(obj, kind)), None)
    tier = getattr(obj, field, None) if field else None
    if tier is None or not tier.inference_only:
        return None
    return field, (
        f"tier {tier.name!r} is reserved for inference services; pick a tier that is not "
        "inference-only, e.g. p1-high"
    )


def pool_capacity_error(entry: PoolFlavor) -> str | None:
    """Why the pool may not reserve ``entry.gpus`` on its flavor, if it may not.

    The pool's ClusterQueue is guaranteed its GPUs like any queue's nominal quota, so
    the same rule holds: every reservation of a flavor together fits its capacity.
    """
    if not entry.pool.is_enabled:
        return None  # a disabled pool renders no ClusterQueue and reserves nothing
    flavor, resource = entry.flavor.name, entry.gpu_resource
    capacity = load_capacity().get(flavor, {}).get(resource)
    if capacity is None:
        return None  # no capacity recorded for it: nothing to divide
    others = reserved_per_flavor(load_holders(), excluding=entry.pool.name).get(
        (flavor, resource), Decimal(0)
    )
    if others + entry.gpus <= capacity:
        return None
    return (
        f"reservations on {flavor}/{resource} would be {format_units(others + entry.gpus)} "
        f"(the pool {entry.gpus} + {format_units(others)} by the queues), above the "
        f"physical capacity of {format_units(capacity)}; rule: all reservations of a "
        f"flavor together fit its capacity, e.g. gpus {format_units(room_left(capacity, others))} fits"
    )


@transaction.atomic
def delete_setting(obj, *, actor) -> None:
    if not permissions.can_manage_catalog(actor):
        raise NotAllowed("only platform admins configure notebooks and jobs")
    record_audit(actor=actor, action=AuditAction.DELETE, obj=obj)
    obj.delete()
    signals.policy_changed()
