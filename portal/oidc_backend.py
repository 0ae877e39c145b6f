"""The mozilla-django-oidc backend: sign-in through the provider, roles from its groups."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from portal.oidc import groups_from_claims, map_groups, parse_group_map


class QuartermasterOIDCBackend(OIDCAuthenticationBackend):
    """Users are matched by ``preferred_username`` (else email); roles follow the groups."""

    def filter_users_by_claims(self, claims):
        username = self._username(claims)
        if not username:
            return self.UserModel.objects.none()
        return self.UserModel.objects.filter(username=username)

    @transaction.atomic
    def create_user(self, claims):
        user = self.UserModel.objects.create_user(
            username=self._username(claims), email=claims.get("email", "")
        )
        user.set_unusable_password()  # the provider is how they sign in
        return self.update_user(user, claims)

    @transaction.atomic
    def update_user(self, user, claims):
        from apps.queues import services

        mapping = parse_group_map(settings.OIDC_GROUP_MAP)
        identity = map_groups(groups_from_claims(claims), mapping)
        user.email = claims.get("email", user.email)
        user.first_name = claims.get("given_name", user.first_name)[:150]
        user.last_name = claims.get("family_name", user.last_name)[:150]
        user.is_platform_admin = identity.is_platform_admin
        user.save()
        services.sync_memberships(
            user=user,
            roles=identity.roles,
            managed_teams=mapping.teams,
            reason="roles from the identity provider's groups at sign-in",
        )
        return user

    @staticmethod
    def _username(claims: dict) -> str:
        return (claims.get("preferred_username") or claims.get("email") or "")[:150]
