"""Admin writes to a team after it exists: its names, its members' roles, leaving it."""

from __future__ import annotations

from django.db import transaction

from apps.queues import signals
from apps.queues.models import Membership, Team
from apps.queues.names import label_value_error
from apps.queues.services.catalog import (
    _audit_if_changed,
    _Errors,
    _membership_dict,
    _require_admin,
    _team_dict,
)
from core.audit import AuditAction, record_audit
from core.bounds import length_error, text_errors
from core.errors import InvalidInput
from core.roles import TeamRole


@transaction.atomic
def update_team(*, team: Team, display_name: str, cost_center: str = "", actor) -> Team:
    """Rename a team or change its cost center. The slug names Kubernetes objects and
    stays as created."""
    _require_admin(actor)
    errors = _Errors()
    if not display_name.strip():
        errors.add("display_name", "must not be empty")
    if problem := length_error(Team, "display_name", display_name):
        errors.add("display_name", problem)
    if problem := cost_center and label_value_error(cost_center):
        errors.add("cost_center", problem)
    errors.raise_if_any()
    team = Team.objects.select_for_update().get(pk=team.pk)
    before = _team_dict(team)
    team.display_name, team.cost_center = display_name, cost_center
    team.save(update_fields=["display_name", "cost_center"])
    _audit_if_changed(actor, team, before, _team_dict(team), team=team)
    return team


def _membership_or_error(team: Team, user) -> Membership:
    membership = (
        Membership.objects.select_for_update().filter(team=team, user=user).select_related("user")
    ).first()
    if membership is None:
        raise InvalidInput.single("user", f"{user.get_username()} is not a member of {team.slug}")
    return membership


@transaction.atomic
def change_role(*, team: Team, user, role: str, actor) -> Membership:
    """Give an existing member another role in the team."""
    _require_admin(actor)
    if role not in TeamRole.values:
        raise InvalidInput.single("role", f"must be one of {', '.join(TeamRole.values)}")
    membership = _membership_or_error(team, user)
    before = _membership_dict(membership)
    membership.role = role
    membership.save(update_fields=["role"])
    _audit_if_changed(actor, membership, before, _membership_dict(membership), team=team)
    return membership


@transaction.atomic
def remove_membership(*, team: Team, user, actor, reason: str = "") -> Membership:
    """Take a user out of a team: they stop seeing its queues and submitting to them.
    Returns the membership as it was."""
    _require_admin(actor)
    if problems := text_errors(reason=reason):
        raise InvalidInput(problems)
    membership = _membership_or_error(team, user)
    before = _membership_dict(membership)
    record_audit(
        actor=actor,
        action=AuditAction.DELETE,
        obj=membership,
        team=team,
        before=before,
        reason=reason,
    )
    membership.delete()
    signals.policy_changed()
    return membership
