"""``Authorization: Token <key>`` (or ``Bearer <key>``) against hashed API tokens."""

from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication, exceptions

from apps.accounts.models import ApiToken, hash_token

# Writing last_used_at on every request would turn reads into writes; a minute
# of resolution is enough to tell a live token from a forgotten one.
LAST_USED_RESOLUTION = timedelta(minutes=1)
SCHEMES = (b"token", b"bearer")


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request):
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower() not in SCHEMES:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Token <key>'.")
        token = self._lookup(parts[1].decode(errors="replace"))
        self._touch(token)
        return token.user, token

    def authenticate_header(self, request) -> str:
        return self.keyword

    @staticmethod
    def _lookup(raw: str) -> ApiToken:
        token = (
            ApiToken.objects.select_related("user")
            .filter(key_hash=hash_token(raw), revoked_at__isnull=True)
            .first()
        )
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return token

    @staticmethod
    def _touch(token: ApiToken) -> None:
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
