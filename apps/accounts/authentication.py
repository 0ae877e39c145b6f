"""``Authorization: Token <key>`` (or ``Bearer <key>``) against hashed API tokens."""

from collections.abc import Callable
from datetime import timedelta
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from rest_framework import authentication, exceptions

from apps.accounts import token_cache
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
        key_hash = hash_token(parts[1].decode(errors="replace"))
        token = token_cache.get(key_hash) or self._lookup(key_hash)
        # Checked on every request, cached or not: expiry needs no notification to take effect.
        if token.is_expired(timezone.now()):
            raise exceptions.AuthenticationFailed("Token expired.")
        self._touch(token, key_hash)
        return token.user, token

    def authenticate_header(self, request) -> str:
        return self.keyword

    @staticmethod
    def _lookup(key_hash: str) -> ApiToken:
        # Taken before the read: a revocation heard meanwhile keeps this read out of the cache.
        generation = token_cache.generation()
        token = (
            ApiToken.objects.select_related("user")
            .filter(key_hash=key_hash, revoked_at__isnull=True)
            .first()
        )
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        token_cache.put(key_hash, token, generation)
        return token

    @staticmethod
    def _touch(token: ApiToken, key_hash: str) -> None:
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token_cache.touched(key_hash, now)


def token_or_login_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A page view (downloads: CSV, JSON) that also takes ``Authorization: Token <key>``.

    With the header, the token's user is the viewer, so the view scopes exactly as for
    that user's session; a bad, expired or revoked token is 401 in the API's error shape
    (never a login redirect a script would follow). Without it: ``login_required``.
    """
    session_view = login_required(view)

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            found = ApiTokenAuthentication().authenticate(request)
        except exceptions.AuthenticationFailed as exc:
            body = {"code": "authentication_failed", "field": None, "detail": str(exc.detail)}
            response = JsonResponse(body, status=401)
            response["WWW-Authenticate"] = ApiTokenAuthentication.keyword
            return response
        if found is None:
            return session_view(request, *args, **kwargs)
        request.user, request.auth = found
        return view(request, *args, **kwargs)

    return wrapped
