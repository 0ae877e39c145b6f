"""Every write of user administration, one function per verb, each audited.

The pages and the API call these. Platform admins only (``core.permissions``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Q

from apps.accounts import token_cache
from apps.accounts.models import User
from apps.accounts.password_links import set_password_path
from apps.accounts.services import USERNAME_EXAMPLE, clean_username
from apps.accounts.sessions import end_sessions_of
from apps.jobs.models import Notebook
from apps.jobs.services import Principal, stop_notebook
from apps.queues.models import Team
from apps.queues.services import add_membership
from core import permissions
from core.audit import AuditAction, record_audit
from core.bounds import length_error, text_errors
from core.errors import InvalidInput, NotAllowed, RuleBroken
from core.roles import TeamRole


@dataclass(frozen=True)
class NewUser:
    """What an admin types to create a user; ``teams`` maps team slug → role."""

    username: str
    email: str = ""
    display_name: str = ""
    teams: dict[str, str] = field(default_factory=dict)


def _require_admin(actor) -> None:
    if not permissions.can_manage_users(actor):
        raise NotAllowed("only platform admins manage users")


def _check_reason(reason: str) -> None:
    if problems := text_errors(reason=reason):
        raise InvalidInput(problems)


def _facts(user: User) -> dict:
    return {
        "username": user.get_username(),
        "email": user.email,
        "display_name": user.display_name,
        "is_active": user.is_active,
    }


def _clean(spec: NewUser) -> tuple[str, str, str, list[tuple[Team, str]]]:
    username = clean_username(spec.username)
    if User.objects.filter(username__iexact=username).exists():
        raise _taken(username)
    email = (spec.email or "").strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise InvalidInput.single(
                "email", f"{email!r} is not an e-mail address (e.g. carol@example.org)"
            ) from None
    display_name = (spec.display_name or "").strip()
    for name, value in (("email", email), ("display_name", display_name)):
        if problem := length_error(User, name, value):
            raise InvalidInput.single(name, problem)
    return username, email, display_name, _teams(spec.teams)


def _taken(username: str) -> RuleBroken:
    return RuleBroken(
        f"{username!r} is taken; choose another ({USERNAME_EXAMPLE})",
        code="invalid",
        field="username",
    )


def _teams(roles: dict[str, str]) -> list[tuple[Team, str]]:
    found = {t.slug: t for t in Team.objects.filter(slug__in=list(roles))}
    chosen = []
    for slug, role in sorted(roles.items()):
        if slug not in found:
            raise InvalidInput.single(f"teams.{slug}", f"no team {slug!r} (e.g. vision)")
        if role not in TeamRole.values:
            roles_text = " or ".join(TeamRole.values)
            raise InvalidInput.single(f"teams.{slug}", f"role must be {roles_text}, not {role!r}")
        chosen.append((found[slug], role))
    return chosen


@transaction.atomic
def create_user(spec: NewUser, *, actor) -> tuple[User, str]:
    """Create a local account with no usable password; returns it with the path of its
    one-time set-password page, to hand to the person once (it is stored nowhere).

    With OIDC on, users appear at their first sign-in instead, so this refuses.
    """
    _require_admin(actor)
    if settings.QM_OIDC_ENABLED:
        raise RuleBroken(
            "users come from the identity provider (OIDC) and appear at their first "
            "sign-in; add them there",
            code="local_accounts_off",
        )
    username, email, display_name, teams = _clean(spec)
    user = User(username=username, email=email, display_name=display_name)
    user.set_unusable_password()
    try:
        with transaction.atomic():  # a savepoint: the race below leaves the outer one usable
            user.save()
    except IntegrityError:
        # Race: another admin created the same username since the check above.
        raise _taken(username) from None
    for team, role in teams:
        add_membership(team=team, user=user, role=role, actor=actor)
    after = {**_facts(user), "teams": {team.slug: role for team, role in teams}}
    record_audit(actor=actor, action=AuditAction.CREATE, obj=user, after=after, reason="created")
    return user, set_password_path(user)


def _lock_with_active_admins(user: User) -> tuple[User, int]:
    """Lock ``user`` and every active platform admin, in pk order; returns the user
    (re-read) and how many active admins there are besides them.

    Race: two admins disabling the last two admins at once. Each locks all active admin
    rows before counting, in one order so neither waits on the other in a cycle; the
    second re-reads the rows after the first commits and sees only one admin left.
    """
    admins = Q(is_active=True, is_platform_admin=True)
    rows = list(User.objects.select_for_update().filter(admins | Q(pk=user.pk)).order_by("pk"))
    locked = next(row for row in rows if row.pk == user.pk)
    others = sum(1 for row in rows if row.pk != user.pk and row.is_active and row.is_platform_admin)
    return locked, others


@transaction.atomic
def disable_user(user: User, *, actor, stop_notebooks: bool = False, reason: str = "") -> bool:
    """Refuse ``user`` sign-in, API tokens and sessions from now on; returns False (and
    writes nothing) when they were disabled already.

    Their tokens are not revoked: they are refused while the user is disabled (the
    token check reads ``is_active``) and work again, within their expiry, on re-enable.
    With ``stop_notebooks`` their running notebooks end too.
    """
    _require_admin(actor)
    locked, other_admins = _lock_with_active_admins(user)
    if not locked.is_active:
        return False
    if locked.is_platform_admin and other_admins == 0:
        raise RuleBroken(
            f"{locked} is the last active platform admin; make another admin first",
            code="last_admin",
            field="user",
        )
    _check_reason(reason)
    sessions = end_sessions_of(locked)
    _set_active(
        locked, False, actor=actor, reason=reason or f"disabled ({sessions} session(s) ended)"
    )
    user.is_active = False
    # This process at once; the others hear the user row's trigger on commit.
    token_cache.invalidate()
    if stop_notebooks:
        stop_user_notebooks(locked, actor=actor, reason="their user was disabled")
    return True


@transaction.atomic
def enable_user(user: User, *, actor, reason: str = "") -> bool:
    """Let a disabled user sign in again (their unexpired, unrevoked tokens work again).
    Returns False when they were active already."""
    _require_admin(actor)
    _check_reason(reason)
    locked = User.objects.select_for_update().get(pk=user.pk)
    if locked.is_active:
        return False
    _set_active(locked, True, actor=actor, reason=reason or "re-enabled")
    user.is_active = True
    return True


def _set_active(locked: User, active: bool, *, actor, reason: str) -> None:
    """Save ``is_active`` on the locked row and audit the change."""
    before = _facts(locked)
    locked.is_active = active
    locked.save(update_fields=["is_active"])
    record_audit(
        actor=actor,
        action=AuditAction.UPDATE,
        obj=locked,
        before=before,
        after=_facts(locked),
        reason=reason,
    )


@transaction.atomic
def stop_user_notebooks(user: User, *, actor, reason: str = "") -> int:
    """Stop every active notebook of ``user`` through the notebook stop service (each
    audited and torn down there); one more audit entry on the user gives the count."""
    _require_admin(actor)
    _check_reason(reason)
    why = reason or "stopped by a platform admin with all of the user's notebooks"
    notebooks = Notebook.objects.active().filter(owner=user).order_by("pk")
    stopped = sum(stop_notebook(nb, actor=Principal(actor), reason=why) for nb in notebooks)
    record_audit(
        actor=actor,
        action=AuditAction.UPDATE,
        obj=user,
        after={"notebooks_stopped": stopped},
        changes=[],
        reason=f"stopped {stopped} notebook(s): {why}",
    )
    return stopped
