"""Shared pieces of the notebook and job services: who is asking, audit, request hashes."""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import asdict, dataclass, is_dataclass

from django.conf import settings
from django.db import transaction
from django.dispatch import Signal

from apps.accounts.models import ApiToken
from apps.jobs import fit
from apps.queues import kueue
from apps.queues.models import FlavorCapacity, Membership, Team
from apps.queues.reconcile.desired import load_state
from core import permissions
from core.audit import record_audit
from core.errors import NotAllowed, RuleBroken
from core.namespaces import is_protected, protected_error

# Work the services hand to the cluster, sent after commit with ``object_id``.
# ``apps.jobs.tasks`` connects a receiver to each that queues its Celery task
# (imported from the app's ready()), so no service imports the tasks module.
notebook_to_provision = Signal()
notebook_to_tear_down = Signal()
job_to_submit = Signal()
job_to_tear_down = Signal()
sweep_to_release = Signal()  # a trial of the sweep ended: its next trials may be released
inference_to_create = Signal()
inference_to_tear_down = Signal()


def after_commit(signal: Signal, object_id: int) -> None:
    if settings.QM_CLUSTER_SYNC:
        transaction.on_commit(lambda: signal.send(sender=None, object_id=object_id))


@dataclass(frozen=True)
class Principal:
    """Who is acting: a signed-in user, or a user's API token (maybe a launcher)."""

    user: object
    token: ApiToken | None = None

    @property
    def launcher(self):
        if self.token is None:
            return None
        return getattr(self.token, "launcher", None)


# The portal itself acting (expiry, culling, a status read back): no user to check or name.
SYSTEM = Principal(user=None)


def request_hash(owner_id: int, spec) -> str:
    """A stable digest of a request, to tell a retry from a different request."""
    body = asdict(spec) if is_dataclass(spec) else dict(spec)
    canonical = json.dumps({"owner": owner_id, **body}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def new_name(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


def audit(actor: Principal, action: str, obj, *, after: dict | None = None, reason: str = ""):
    """Audit row in the caller's transaction; says so when a launcher acted for someone."""
    if actor.token is not None and getattr(obj, "owner_id", None) != actor.user.pk:
        reason = f"{reason} (by launcher token {actor.token.prefix}… for {obj.owner})".strip()
    return record_audit(
        actor=actor.user, action=action, obj=obj, team=obj.team, after=after, reason=reason
    )


def resolve_team(user, team_slug: str) -> Team:
    """The team the request is for: the one named, or the user's only team."""
    memberships = Membership.objects.filter(user=user).select_related("team")
    if team_slug:
        membership = memberships.filter(team__slug=team_slug).first()
        if membership is None:
            raise NotAllowed(
                f"{user} is not a member of team {team_slug!r}", code="not_a_member", field="team"
            )
        return membership.team
    teams = [m.team for m in memberships]
    if not teams:
        raise NotAllowed(f"{user} is not a member of any team", code="not_a_member", field="team")
    if len(teams) > 1:
        raise RuleBroken(
            "you belong to several teams; name one", code="team_required", field="team"
        )
    return teams[0]


def resolve_namespace(team: Team, namespace: str) -> str:
    """The namespace named, or the team's first; never a protected one (a team row saved
    before the deny-list may still list one)."""
    names = list(team.namespaces.values_list("name", flat=True))
    usable = [name for name in names if not is_protected(name)]
    if not usable:
        raise RuleBroken(
            f"team {team} has no namespace", code="namespace_not_allowed", field="team"
        )
    if not namespace:
        return usable[0]
    if namespace not in names:
        raise RuleBroken(
            f"namespace {namespace!r} does not belong to team {team}",
            code="namespace_not_allowed",
            field="namespace",
        )
    if problem := protected_error(namespace):
        raise RuleBroken(problem, code="namespace_not_allowed", field="namespace")
    return namespace


def resolve_subject(actor: Principal, username: str):
    """Who the request is for: the actor, or (launchers only) the user named in the body."""
    from apps.accounts.models import User

    if not username or username == actor.user.get_username():
        return actor.user
    if actor.launcher is None:
        raise NotAllowed(
            "only launcher tokens may act for another user",
            code="launcher_not_allowed",
            field="user",
        )
    user = User.objects.filter(username=username, is_active=True).first()
    if user is None:
        raise NotAllowed(f"no active user {username!r}", code="not_a_member", field="user")
    return user


def check_acts_for(actor: Principal, user, team: Team) -> None:
    """A principal acts for itself; a launcher token also for members of its teams."""
    if user.pk == actor.user.pk:
        return
    grant = actor.launcher
    if grant is None or not grant.teams.filter(pk=team.pk).exists():
        raise NotAllowed(
            f"this token may not act for users of team {team}",
            code="launcher_not_allowed",
            field="user",
        )


def queue_ceiling(queue: str, flavor: str, resource: str) -> fit.Ceiling:
    """The most ``queue`` could ever get of ``flavor``'s ``resource``, as Kueue would see it."""
    ceiling = fit.queue_ceiling(kueue.render_all(load_state()), queue, flavor, resource)
    return fit.capped(ceiling, flavor_capacity(flavor, resource))


def flavor_capacity(flavor: str, resource: str) -> str | None:
    row = FlavorCapacity.objects.filter(flavor__name=flavor, resource=resource).first()
    return row.capacity if row else None


def portal_url(path: str) -> str:
    """An absolute link for notifications when ``PORTAL_URL`` is set, else the path."""
    from django.conf import settings

    return f"{settings.PORTAL_URL.rstrip('/')}{path}" if settings.PORTAL_URL else path


def can_manage(actor_user, obj) -> bool:
    """Owner, whoever requested it, a lead of its team, or an admin."""
    return (
        obj.owner_id == actor_user.pk
        or obj.requested_by_id == actor_user.pk
        or permissions.is_admin(actor_user)
        or permissions.is_lead_of(actor_user, obj.team)
    )
