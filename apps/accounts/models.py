"""Users and API tokens.

Platform admin is a property of the user; team roles live on
``queues.Membership`` because they are per team.
"""

import hashlib
import secrets

from django.contrib.auth.models import AbstractUser
from django.db import models

TOKEN_PREFIX_LENGTH = 8


class User(AbstractUser):
    """A portal user. ``is_platform_admin`` grants every policy action."""

    is_platform_admin = models.BooleanField(default=False)


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    """A bearer token for the REST API. Only its SHA-256 is stored."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=TOKEN_PREFIX_LENGTH, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @staticmethod
    def generate_raw() -> str:
        return secrets.token_urlsafe(32)
