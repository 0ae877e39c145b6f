"""Writes for accounts: issuing and revoking API tokens."""

from django.db import transaction
from django.utils import timezone

from apps.accounts import token_cache
from apps.accounts.models import TOKEN_PREFIX_LENGTH, ApiToken, User, hash_token


@transaction.atomic
def issue_api_token(user: User, name: str) -> tuple[ApiToken, str]:
    """Create a token and return it with the raw key, which is shown once."""
    raw = ApiToken.generate_raw()
    token = ApiToken.objects.create(
        user=user, name=name, prefix=raw[:TOKEN_PREFIX_LENGTH], key_hash=hash_token(raw)
    )
    return token, raw


def revoke_api_token(token: ApiToken) -> None:
    """Refuse the token from now on, in every web process (see ``token_cache``)."""
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    # This process at once; the others when the trigger's notification arrives on commit.
    token_cache.invalidate()
