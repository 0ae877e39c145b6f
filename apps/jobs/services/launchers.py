"""Launcher tokens: API tokens that may act for members of granted teams (admin-only)."""

from __future__ import annotations

from django.db import transaction

from apps.accounts.services import DEFAULT_DAYS, issue_api_token
from apps.jobs.models import LauncherGrant
from apps.queues.models import Team
from core import permissions
from core.audit import AuditAction, record_audit
from core.errors import NotAllowed, RuleBroken


def _check(actor) -> None:
    # None is the command line, run by whoever operates the installation.
    if actor is not None and not permissions.can_manage_launchers(actor):
        raise NotAllowed("only platform admins manage launcher tokens")


def _teams(slugs_or_teams) -> list[Team]:
    slugs = sorted({getattr(t, "slug", t) for t in slugs_or_teams})
    if not slugs:
        raise RuleBroken("a launcher needs at least one team", code="invalid", field="teams")
    teams = list(Team.objects.filter(slug__in=slugs).order_by("slug"))
    missing = sorted(set(slugs) - {t.slug for t in teams})
    if missing:
        raise RuleBroken(f"no such team: {', '.join(missing)}", code="invalid", field="teams")
    return teams


@transaction.atomic
def issue_launcher_token(
    user, name: str, teams, *, actor, days: int = DEFAULT_DAYS
) -> tuple[LauncherGrant, str]:
    """A token for ``user`` (a service account such as JupyterHub's) that may request
    notebooks for members of ``teams``; returns the grant and the raw key, shown once."""
    _check(actor)
    granted = _teams(teams)
    token, raw = issue_api_token(user, name, actor=actor, days=days, reason="launcher token")
    grant = LauncherGrant.objects.create(token=token, granted_by=actor)
    grant.teams.set(granted)
    record_audit(
        actor=actor,
        action=AuditAction.CREATE,
        obj=grant,
        after={"token": str(token), "user": user.get_username(), "teams": _slugs(granted)},
    )
    return grant, raw


@transaction.atomic
def set_launcher_teams(grant: LauncherGrant, teams, *, actor) -> LauncherGrant:
    """Change which teams' members the launcher may act for (takes effect at once)."""
    _check(actor)
    granted = _teams(teams)
    locked = LauncherGrant.objects.select_for_update().select_related("token").get(pk=grant.pk)
    before = _slugs(locked.teams.all())
    if before == _slugs(granted):
        return locked
    locked.teams.set(granted)
    record_audit(
        actor=actor,
        action=AuditAction.UPDATE,
        obj=locked,
        before={"teams": before},
        after={"teams": _slugs(granted)},
    )
    return locked


def _slugs(teams) -> list[str]:
    return sorted(t.slug for t in teams)
