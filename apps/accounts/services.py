"""Writes for accounts: issuing and revoking API tokens, and sign-in lockouts, each audited."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.accounts import token_cache
from apps.accounts.login_guard import ACCOUNT, Lockout
from apps.accounts.models import TOKEN_PREFIX_LENGTH, ApiToken, User, hash_token
from core import permissions
from core.audit import AuditAction, record_anonymous_audit, record_audit
from core.dates import iso_z
from core.errors import NotAllowed, RuleBroken

log = logging.getLogger(__name__)

NAME_MAX_LENGTH = ApiToken._meta.get_field("name").max_length
MIN_DAYS, MAX_DAYS, DEFAULT_DAYS = 1, 365, 90


def token_facts(token: ApiToken) -> dict:
    """What the audit log keeps of a token: never the secret, nor its hash."""
    return {
        "name": token.name,
        "user": token.user.get_username(),
        "prefix": token.prefix,
        "expires_at": iso_z(token.expires_at),
        "revoked_at": iso_z(token.revoked_at),
    }


def clean_token_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise RuleBroken("give the token a name", code="invalid", field="name")
    if len(name) > NAME_MAX_LENGTH:
        raise RuleBroken(
            f"at most {NAME_MAX_LENGTH} characters ({len(name)} given)",
            code="invalid",
            field="name",
        )
    return name


def clean_token_days(days: int) -> int:
    if isinstance(days, bool) or not isinstance(days, int) or not MIN_DAYS <= days <= MAX_DAYS:
        raise RuleBroken(
            f"expiry must be {MIN_DAYS} to {MAX_DAYS} days, not {days!r}",
            code="invalid",
            field="days",
        )
    return days


@transaction.atomic
def issue_api_token(
    user: User, name: str, *, actor: User | None, days: int = DEFAULT_DAYS, reason: str = ""
) -> tuple[ApiToken, str]:
    """Create a token for ``user`` expiring in ``days``; returns it with the raw key.

    The raw key is shown once and never stored (only its SHA-256). ``actor`` is the
    user themselves or a platform admin; None is the command line (audited as system).
    """
    if actor is not None and not permissions.can_manage_tokens_of(actor, user):
        raise NotAllowed("you may only create tokens for yourself", field="user")
    if not user.is_active:
        raise RuleBroken(f"{user} is not an active user", code="invalid", field="user")
    name, days = clean_token_name(name), clean_token_days(days)
    raw = ApiToken.generate_raw()
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=raw[:TOKEN_PREFIX_LENGTH],
        key_hash=hash_token(raw),
        expires_at=timezone.now() + timedelta(days=days),
    )
    record_audit(
        actor=actor, action=AuditAction.CREATE, obj=token, after=token_facts(token), reason=reason
    )
    return token, raw


@transaction.atomic
def revoke_api_token(token: ApiToken, *, actor: User | None, reason: str = "") -> bool:
    """Refuse the token from now on, in every web process (see ``token_cache``).

    Returns False (and writes nothing) when it was revoked already.
    """
    if actor is not None and not permissions.can_manage_tokens_of(actor, token.user):
        raise NotAllowed("you may only revoke your own tokens")
    locked = ApiToken.objects.select_for_update().select_related("user").get(pk=token.pk)
    if locked.revoked_at is not None:
        return False
    before = token_facts(locked)
    locked.revoked_at = timezone.now()
    locked.save(update_fields=["revoked_at"])
    token.revoked_at = locked.revoked_at
    record_audit(
        actor=actor,
        action=AuditAction.UPDATE,
        obj=locked,
        before=before,
        after=token_facts(locked),
        reason=reason or "revoked",
    )
    # This process at once; the others when the trigger's notification arrives on commit.
    token_cache.invalidate()
    return True


def record_login_lockout(lockout: Lockout, *, username: str, address: str) -> None:
    """Audit and log a lockout that has just begun (see ``record_anonymous_audit``)."""
    until = datetime.fromtimestamp(lockout.until, tz=UTC)
    if lockout.scope == ACCOUNT:
        limit, subject = settings.QM_LOGIN_FAILURES_PER_ACCOUNT, f"sign-in as {username!r}"
    else:
        limit, subject = settings.QM_LOGIN_FAILURES_PER_ADDRESS, f"sign-in from {lockout.subject}"
    reason = (
        f"{limit} failed sign-ins within {_duration(settings.QM_LOGIN_WINDOW_SECONDS)}; "
        f"refused until {until:%Y-%m-%d %H:%M:%S} UTC"
    )
    log.warning(
        "%s locked out: %s",
        subject,
        reason,
        extra={"lockout_scope": lockout.scope, "username": username, "client_address": address},
    )
    record_anonymous_audit(
        action=AuditAction.LOGIN_LOCKOUT,
        subject_type="login",
        subject_id=lockout.subject,
        subject=subject,
        after={
            "scope": lockout.scope,
            "username": username,
            "address": address,
            "locked_until": iso_z(until),
        },
        reason=reason,
    )


def _duration(seconds: int) -> str:
    return f"{seconds // 60} min" if seconds % 60 == 0 else f"{seconds} s"


def _admin_facts(user: User) -> dict:
    return {"username": user.get_username(), "is_platform_admin": user.is_platform_admin}


USERNAME_EXAMPLE = "e.g. carol or carol.smith"


def clean_username(username: str) -> str:
    """A username by Django's rule (letters, digits and @ . + - _), or ``RuleBroken``."""
    username = (username or "").strip()
    limit = User._meta.get_field("username").max_length
    if not username or len(username) > limit:
        raise RuleBroken(
            f"give a username of 1 to {limit} characters ({USERNAME_EXAMPLE})",
            code="invalid",
            field="username",
        )
    try:
        User.username_validator(username)
    except ValidationError as exc:
        detail = f"{' '.join(exc.messages)} ({USERNAME_EXAMPLE})"
        raise RuleBroken(detail, code="invalid", field="username") from None
    return username


@transaction.atomic
def make_platform_admin(
    username: str, *, password: str | None, actor: User | None
) -> tuple[User, bool]:
    """Create ``username`` as a platform admin, or make the existing user one.

    How the first admin comes to be (``manage.py create_platform_admin``); ``actor`` None
    is the command line. An existing user keeps their password. Returns the user and
    whether anything changed: run again, it changes and records nothing.
    """
    if actor is not None and not permissions.is_admin(actor):
        raise NotAllowed("only platform admins make platform admins")
    username = clean_username(username)
    user = User.objects.select_for_update().filter(username=username).first()
    if user is not None:
        return _promote(user, actor=actor)
    if not password:
        raise RuleBroken("a new user needs a password", code="invalid", field="password")
    user = User(username=username, is_platform_admin=True)
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise RuleBroken(" ".join(exc.messages), code="invalid", field="password") from None
    user.set_password(password)
    user.save()
    record_audit(
        actor=actor,
        action=AuditAction.CREATE,
        obj=user,
        after=_admin_facts(user),
        reason="platform admin created",
    )
    return user, True


def _promote(user: User, *, actor: User | None) -> tuple[User, bool]:
    if not user.is_active:
        raise RuleBroken(f"{user} is deactivated", code="invalid", field="username")
    if user.is_platform_admin:
        return user, False
    before = _admin_facts(user)
    user.is_platform_admin = True
    user.save(update_fields=["is_platform_admin"])
    record_audit(
        actor=actor,
        action=AuditAction.UPDATE,
        obj=user,
        before=before,
        after=_admin_facts(user),
        reason="made platform admin",
    )
    return user, True
