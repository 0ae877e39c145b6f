"""Who may do what — the one place permissions are decided.

Pages, API viewsets, services and templates of every app ask these functions. Reads
are narrowed by the ``visible_to`` queryset methods; these answer the write checks.
They read a user's memberships through the ORM relations only, so this layer imports
no app.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.roles import TeamRole


def is_signed_in(user) -> bool:
    return user is not None and user.is_authenticated


def is_admin(user) -> bool:
    return is_signed_in(user) and bool(user.is_platform_admin)


def role_in(user, team) -> str | None:
    if not is_signed_in(user) or team is None:
        return None
    membership = team.memberships.filter(user=user).only("role").first()
    return membership.role if membership else None


def is_lead_of(user, team) -> bool:
    return role_in(user, team) == TeamRole.LEAD


def is_member_of(user, team) -> bool:
    return role_in(user, team) is not None


def can_edit_queue(user, queue) -> bool:
    """Admins edit any queue; a team lead edits their team's queues (maybe via approval)."""
    return is_admin(user) or (queue.team_id is not None and is_lead_of(user, queue.team))


def can_set_sweep_limit(user, team) -> bool:
    """A team's leads choose its sweep limit per user; admins too, and only they its envelope."""
    return is_admin(user) or is_lead_of(user, team)


def can_manage_catalog(user) -> bool:
    """Flavors, cohorts, priority tiers, teams, envelopes and new queues are admin-only."""
    return is_admin(user)


def can_decide_change_request(user) -> bool:
    return is_admin(user)


def can_withdraw_change_request(user, change_request) -> bool:
    """Only the requester: an admin who disagrees rejects it, with a comment."""
    return is_signed_in(user) and change_request.requested_by_id == user.pk


def can_manage_tokens_of(user, owner) -> bool:
    """Everyone manages their own API tokens; platform admins anyone's (launchers too)."""
    return is_signed_in(user) and (user.pk == owner.pk or is_admin(user))


def can_manage_users(user) -> bool:
    """Creating, disabling and re-enabling users, and stopping their notebooks."""
    return is_admin(user)


def can_manage_launchers(user) -> bool:
    """Launcher tokens act for other users, so only platform admins issue and grant them."""
    return is_admin(user)


def can_view_team_audit(user, team) -> bool:
    return is_admin(user) or is_member_of(user, team)


def can_view_global_audit(user) -> bool:
    return is_admin(user)


def can_run_whatif(user) -> bool:
    """Admins and team leads (who may draft only queues they may edit)."""
    if is_admin(user):
        return True
    return is_signed_in(user) and user.memberships.filter(role=TeamRole.LEAD).exists()


def can_dismiss_suggestion(user, suggestion) -> bool:
    """Whoever may edit the suggestion's queue (its team's leads, admins) may dismiss it."""
    return can_edit_queue(user, suggestion.queue)


def can_view_eta(user, namespace: str) -> bool:
    """Admins see every ETA; members see those of their team's namespaces."""
    if is_admin(user):
        return True
    return is_signed_in(user) and user.memberships.filter(team__namespaces__name=namespace).exists()


@dataclass(frozen=True)
class ViewerSummary:
    """What navigation needs to know about the viewer."""

    signed_in: bool
    is_admin: bool
    lead_team_slugs: tuple[str, ...]
    member_team_slugs: tuple[str, ...]


def viewer_summary(user) -> ViewerSummary:
    if not is_signed_in(user):
        return ViewerSummary(False, False, (), ())
    rows = list(user.memberships.select_related("team").values_list("team__slug", "role"))
    return ViewerSummary(
        signed_in=True,
        is_admin=is_admin(user),
        lead_team_slugs=tuple(slug for slug, role in rows if role == TeamRole.LEAD),
        member_team_slugs=tuple(slug for slug, _ in rows),
    )
