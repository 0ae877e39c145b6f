"""Users and API tokens.

Platform admin is a property of the user; team roles live on
``queues.Membership`` because they are per team.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone

TOKEN_PREFIX_LENGTH = 8


class User(AbstractUser):
    """A portal user. ``is_platform_admin`` grants every policy action.

    ``is_active`` False is a disabled user: no sign-in, no API token, no session.
    """

    is_platform_admin = models.BooleanField(default=False)
    # How the portal names the person ("Carol Smith"); the username stays the login.
    display_name = models.CharField(max_length=150, blank=True)


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def owned_by(self, user) -> ApiTokenQuerySet:
        """A user's own tokens, newest first (the tokens page never shows anyone else's)."""
        return self.filter(user=user).select_related("user").order_by("-pk")


class ApiToken(models.Model):
    """A bearer token for the REST API. Only its SHA-256 is stored."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=TOKEN_PREFIX_LENGTH, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # None only for tokens issued before expiry existed; every new token has one.
    expires_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def is_expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    @property
    def is_usable(self) -> bool:
        return self.revoked_at is None and not self.is_expired(timezone.now())

    @staticmethod
    def generate_raw() -> str:
        # Hex, not URL-safe base64: a token starting with "-" is taken for an option
        # by command-line clients (``--token -Abc…``).
        return secrets.token_hex(32)
