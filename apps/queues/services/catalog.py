"""Admin writes to the catalog: teams, memberships, flavors, cohorts, tiers, envelopes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction
from django.forms.models import model_to_dict

from apps.queues import signals
from apps.queues.capacity import load_holders
from apps.queues.models import (
    Cohort,
    Envelope,
    EnvelopeLimit,
    FlavorCapacity,
    Membership,
    PriorityTier,
    ResourceFlavor,
    Team,
    TeamNamespace,
)
from apps.queues.names import (
    dns_label_error,
    dns_subdomain_error,
    label_key_error,
    label_value_error,
    resource_name_error,
)
from apps.queues.quantity import (
    QuantityError,
    format_units,
    parse_units,
    whole_device_error,
)
from apps.queues.reservations import reserved_per_flavor
from apps.queues.taints import taint_problems, toleration_problems
from apps.queues.topology import frozen_problems, level_problems
from core import permissions
from core.audit import AuditAction, record_audit
from core.bounds import length_error, text_errors
from core.errors import InvalidInput, NotAllowed
from core.namespaces import protected_error
from core.roles import TeamRole

INT32 = (-(2**31), 2**31 - 1)


class _Errors(dict):
    def add(self, path: str, message: str) -> None:
        self.setdefault(path, []).append(message)

    def raise_if_any(self) -> None:
        if self:
            raise InvalidInput(dict(self))


def _require_admin(actor) -> None:
    if not permissions.can_manage_catalog(actor):
        raise NotAllowed("only platform admins change the catalog")


def _check(errors: _Errors, path: str, problem: str | None) -> None:
    if problem:
        errors.add(path, problem)


def _quantity(
    errors: _Errors, path: str, value: Any, *, optional: bool = False, resource: str = ""
) -> Decimal | None:
    if optional and value in (None, ""):
        return None
    try:
        parsed = parse_units(value)
    except QuantityError as exc:
        errors.add(path, str(exc))
        return None
    if parsed < 0:
        errors.add(path, "must not be negative")
        return None
    if problem := whole_device_error(resource, parsed):
        errors.add(path, problem)
        return None
    return parsed


@transaction.atomic
def create_team(
    *, slug: str, display_name: str, cost_center: str = "", namespaces: list[str], actor
) -> Team:
    _require_admin(actor)
    errors = _Errors()
    _check(errors, "slug", dns_label_error(slug))
    _check(errors, "cost_center", cost_center and label_value_error(cost_center))
    if not display_name.strip():
        errors.add("display_name", "must not be empty")
    _check(errors, "display_name", length_error(Team, "display_name", display_name))
    if not namespaces:
        errors.add("namespaces", "a team needs at least one namespace")
    for index, name in enumerate(namespaces):
        _check(errors, f"namespaces[{index}]", dns_label_error(name) or protected_error(name))
    if Team.objects.filter(slug=slug).exists():
        errors.add("slug", f"a team named {slug!r} already exists")
    taken = TeamNamespace.objects.filter(name__in=namespaces).values_list("name", flat=True)
    for name in taken:
        errors.add("namespaces", f"namespace {name!r} already belongs to another team")
    errors.raise_if_any()
    team = Team.objects.create(slug=slug, display_name=display_name, cost_center=cost_center)
    TeamNamespace.objects.bulk_create(TeamNamespace(team=team, name=n) for n in namespaces)
    after = {**_team_dict(team), "namespaces": namespaces}
    record_audit(actor=actor, action=AuditAction.CREATE, obj=team, team=team, after=after)
    signals.policy_changed()
    return team


def _team_dict(team: Team) -> dict:
    return {"slug": team.slug, "display_name": team.display_name, "cost_center": team.cost_center}


@transaction.atomic
def add_membership(*, team: Team, user, role: str, actor) -> Membership:
    _require_admin(actor)
    if role not in TeamRole.values:
        raise InvalidInput.single("role", f"must be one of {', '.join(TeamRole.values)}")
    existing = Membership.objects.filter(team=team, user=user).first()
    before = _membership_dict(existing) if existing else None
    membership, created = Membership.objects.update_or_create(
        team=team, user=user, defaults={"role": role}
    )
    _audit_if_changed(actor, membership, before, _membership_dict(membership), team=team)
    if created:
        signals.policy_changed()  # a queue fair between users gives them a LocalQueue
    return membership


@transaction.atomic
def sync_memberships(*, user, roles: dict[str, str], managed_teams: set[str], reason: str):
    """Make ``user``'s roles in ``managed_teams`` exactly ``roles`` (team slug → role).

    The identity provider's word, applied at sign-in (``portal.oidc``): memberships
    of teams outside ``managed_teams`` are left as an admin set them. Audited with
    no actor and ``reason`` naming the source. Unknown team slugs are ignored.
    """
    teams = {t.slug: t for t in Team.objects.filter(slug__in=managed_teams | set(roles))}
    current = {m.team.slug: m for m in user.memberships.select_related("team")}
    for slug in sorted(managed_teams):
        team, membership, role = teams.get(slug), current.get(slug), roles.get(slug)
        if team is None or (membership and membership.role == role):
            continue
        before = _membership_dict(membership) if membership else None
        if role is None:
            if membership is not None:
                membership.delete()
                signals.policy_changed()  # their own LocalQueues go (once idle)
                record_audit(
                    actor=None,
                    action=AuditAction.DELETE,
                    obj=membership,
                    team=team,
                    before=before,
                    reason=reason,
                )
            continue
        membership, created = Membership.objects.update_or_create(
            team=team, user=user, defaults={"role": role}
        )
        if created:
            signals.policy_changed()  # their own LocalQueues, if a queue is fair between users
        _audit_if_changed(
            None, membership, before, _membership_dict(membership), team=team, reason=reason
        )


def _membership_dict(membership: Membership) -> dict:
    return {
        "user": membership.user.get_username(),
        "team": membership.team.slug,
        "role": membership.role,
    }


def _audit_if_changed(
    actor, obj, before: dict | None, after: dict, *, team=None, reason=""
) -> None:
    """Record a catalog change; saving identical values writes nothing (idempotent loads)."""
    if before == after:
        return
    action = AuditAction.CREATE if before is None else AuditAction.UPDATE
    record_audit(
        actor=actor, action=action, obj=obj, team=team, before=before, after=after, reason=reason
    )
    signals.policy_changed()


def _flavor_dict(flavor: ResourceFlavor) -> dict:
    data = model_to_dict(flavor, exclude=["id"])
    data["capacity"] = {c.resource: c.capacity for c in flavor.capacities.all()}
    return data


@transaction.atomic
def save_flavor(
    *,
    name: str,
    capacity: dict[str, str],
    actor,
    gpu_model: str = "",
    description: str = "",
    node_labels: dict[str, str] | None = None,
    node_taints: list[dict] | None = None,
    tolerations: list[dict] | None = None,
    topology_levels: list[dict] | None = None,
    reason: str = "",
    capacity_override_reason: str = "",
) -> ResourceFlavor:
    """Create or update a flavor and its physical capacity.

    Topology levels, once set, fix the levels, node labels and tolerations for good:
    Kueue refuses to change them in the cluster (see ``apps.queues.topology``).
    """
    _require_admin(actor)
    flavor = ResourceFlavor.objects.select_for_update().filter(name=name).first()
    errors = _Errors()
    _check(errors, "name", dns_subdomain_error(name))
    _check(errors, "gpu_model", length_error(ResourceFlavor, "gpu_model", gpu_model))
    errors.update(
        text_errors(
            description=description,
            reason=reason,
            capacity_override_reason=capacity_override_reason,
        )
    )
    parsed = _check_capacity(errors, capacity)
    _check_node_labels(errors, node_labels or {})
    _check_taints(errors, node_taints or [], tolerations or [])
    wanted = {
        "node_labels": node_labels or {},
        "tolerations": tolerations or [],
        "topology_levels": topology_levels or [],
    }
    for path, problem in level_problems(topology_levels, node_labels or {}):
        errors.add(path, problem)
    for path, problem in frozen_problems(model_to_dict(flavor) if flavor else None, wanted):
        errors.add(path, problem)
    if flavor is not None and not capacity_override_reason.strip():
        _check_capacity_not_below_quotas(errors, flavor, parsed)
    errors.raise_if_any()
    before = _flavor_dict(flavor) if flavor else None
    flavor = flavor or ResourceFlavor(name=name)
    flavor.gpu_model, flavor.description = gpu_model, description
    flavor.node_labels, flavor.node_taints = node_labels or {}, node_taints or []
    flavor.tolerations, flavor.topology_levels = wanted["tolerations"], wanted["topology_levels"]
    flavor.save()
    FlavorCapacity.objects.filter(flavor=flavor).exclude(resource__in=capacity).delete()
    for resource, value in capacity.items():
        FlavorCapacity.objects.update_or_create(
            flavor=flavor, resource=resource, defaults={"capacity": str(value)}
        )
    after = _flavor_dict(flavor)
    _audit_if_changed(actor, flavor, before, after, reason=capacity_override_reason or reason)
    return flavor


def _check_capacity(errors: _Errors, capacity: dict[str, str]) -> dict[str, Decimal]:
    parsed = {}
    if not capacity:
        errors.add("capacity", "a flavor needs the capacity of at least one resource")
    for resource, value in capacity.items():
        _check(errors, f"capacity.{resource}", resource_name_error(resource))
        quantity = _quantity(errors, f"capacity.{resource}", value, resource=resource)
        if quantity is not None:
            parsed[resource] = quantity
    return parsed


def _check_node_labels(errors: _Errors, labels: dict[str, str]) -> None:
    if len(labels) > 8:
        errors.add("node_labels", "at most 8 node labels (Kueue rule)")
    for key, value in labels.items():
        _check(errors, f"node_labels.{key}", label_key_error(key))
        _check(errors, f"node_labels.{key}", label_value_error(str(value)))


def _check_taints(errors: _Errors, taints: Any, tolerations: Any) -> None:
    for path, problem in (*taint_problems(taints), *toleration_problems(tolerations)):
        errors.add(path, problem)


def _check_capacity_not_below_quotas(errors: _Errors, flavor, parsed: dict[str, Decimal]) -> None:
    # Every ClusterQueue's reservation counts, the notebook pool's included.
    reserved = reserved_per_flavor(load_holders())
    listed = set(flavor.capacities.values_list("resource", flat=True))
    for (name, resource), total in reserved.items():
        if name != flavor.name:
            continue
        if resource not in parsed and resource in listed:
            errors.add("capacity", f"queues still hold quota for {resource}; keep its capacity")
        elif resource in parsed and parsed[resource] < total:
            errors.add(
                f"capacity.{resource}",
                f"queues hold {format_units(total)} of nominal quota, above the new capacity "
                "(the notebook pool and every other ClusterQueue count); rule: all "
                "reservations of a flavor fit its capacity, e.g. "
                f"{resource}={format_units(total)}; give a capacity override reason to save "
                "anyway",
            )


@transaction.atomic
def save_cohort(
    *, name: str, actor, parent: str | None = None, fair_weight: str = "1", description: str = ""
) -> Cohort:
    _require_admin(actor)
    errors = _Errors()
    _check(errors, "name", dns_subdomain_error(name))
    _quantity(errors, "fair_weight", fair_weight)
    errors.update(text_errors(description=description))
    parent_obj = Cohort.objects.filter(name=parent).first() if parent else None
    if parent and parent_obj is None:
        errors.add("parent", f"cohort {parent!r} does not exist")
    if parent_obj and _would_cycle(name, parent_obj):
        errors.add("parent", "would create a cycle in the cohort tree")
    errors.raise_if_any()
    cohort = Cohort.objects.select_for_update().filter(name=name).first()
    before = _cohort_dict(cohort) if cohort else None
    cohort = cohort or Cohort(name=name)
    cohort.parent, cohort.fair_weight, cohort.description = parent_obj, fair_weight, description
    cohort.save()
    _audit_if_changed(actor, cohort, before, _cohort_dict(cohort))
    return cohort


def _would_cycle(name: str, parent: Cohort) -> bool:
    node, seen = parent, set()
    while node is not None and node.pk not in seen:
        if node.name == name:
            return True
        seen.add(node.pk)
        node = node.parent
    return False


def _cohort_dict(cohort: Cohort) -> dict:
    return {
        "name": cohort.name,
        "parent": cohort.parent.name if cohort.parent_id else None,
        "fair_weight": cohort.fair_weight,
        "description": cohort.description,
    }


@transaction.atomic
def save_priority_tier(
    *, name: str, value: int, actor, description: str = "", inference_only: bool | None = None
) -> PriorityTier:
    """Create or change a tier; an ``inference_only`` one is for inference services alone
    (None keeps what the tier has, so the catalog form cannot clear it unawares)."""
    _require_admin(actor)
    errors = _Errors()
    _check(errors, "name", dns_label_error(name))
    if not isinstance(value, int) or not INT32[0] <= value <= INT32[1]:
        errors.add("value", "must be a 32-bit integer")
    if len(description) > 2048:
        errors.add("description", "at most 2048 characters (Kueue rule)")
    errors.raise_if_any()
    tier = PriorityTier.objects.select_for_update().filter(name=name).first()
    before = model_to_dict(tier, exclude=["id"]) if tier else None
    tier = tier or PriorityTier(name=name)
    tier.value, tier.description = value, description
    if inference_only is not None:
        tier.inference_only = inference_only
    tier.save()
    _audit_if_changed(actor, tier, before, model_to_dict(tier, exclude=["id"]))
    return tier


@transaction.atomic
def save_envelope(
    *,
    team: Team,
    actor,
    min_weight: str | None = None,
    max_weight: str | None = None,
    limits: list[dict] | None = None,
    reason: str = "",
) -> Envelope:
    """Replace a team's envelope: weight range and per flavor × resource maxima."""
    _require_admin(actor)
    limits = limits or []
    errors = _Errors(text_errors(reason=reason))
    low = _quantity(errors, "min_weight", min_weight, optional=True)
    high = _quantity(errors, "max_weight", max_weight, optional=True)
    if low is not None and high is not None and low > high:
        errors.add("max_weight", "must not be below min_weight")
    flavors = {f.name: f for f in ResourceFlavor.objects.prefetch_related("capacities")}
    for index, limit in enumerate(limits):
        _check_envelope_limit(errors, f"limits[{index}]", limit, flavors)
    errors.raise_if_any()
    envelope, _ = Envelope.objects.select_for_update().get_or_create(team=team)
    before = _envelope_dict(envelope)
    envelope.min_weight, envelope.max_weight = min_weight or None, max_weight or None
    envelope.save()
    envelope.limits.all().delete()
    EnvelopeLimit.objects.bulk_create(
        EnvelopeLimit(
            envelope=envelope,
            flavor=flavors[limit["flavor"]],
            resource=limit["resource"],
            max_nominal=str(limit["max_nominal"]),
            max_borrowing=limit.get("max_borrowing") or None,
        )
        for limit in limits
    )
    _audit_if_changed(actor, envelope, before, _envelope_dict(envelope), team=team, reason=reason)
    return envelope


def _check_envelope_limit(errors: _Errors, path: str, limit: dict, flavors: dict) -> None:
    flavor = flavors.get(limit.get("flavor"))
    if flavor is None:
        errors.add(f"{path}.flavor", f"flavor {limit.get('flavor')!r} does not exist")
        return
    if limit.get("resource") not in {c.resource for c in flavor.capacities.all()}:
        errors.add(f"{path}.resource", f"flavor {flavor.name} has no {limit.get('resource')!r}")
    resource = limit.get("resource") or ""
    _quantity(errors, f"{path}.max_nominal", limit.get("max_nominal"), resource=resource)
    _quantity(
        errors,
        f"{path}.max_borrowing",
        limit.get("max_borrowing"),
        optional=True,
        resource=resource,
    )


def _envelope_dict(envelope: Envelope) -> dict:
    return {
        "min_weight": envelope.min_weight,
        "max_weight": envelope.max_weight,
        "limits": {
            f"{limit.flavor.name}/{limit.resource}": {
                "max_nominal": limit.max_nominal,
                "max_borrowing": limit.max_borrowing,
            }
            for limit in envelope.limits.select_related("flavor")
        },
    }
