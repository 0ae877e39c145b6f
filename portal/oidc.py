"""Optional single sign-on through an OpenID Connect provider (mozilla-django-oidc).

Off unless ``QM_OIDC_ENABLED``; local accounts keep working either way. At each
sign-in the provider's groups decide the user's platform-admin flag and their
roles in the teams the mapping names (``QM_OIDC_GROUP_MAP``)::

    QM_OIDC_GROUP_MAP="gpu-admins=admin,vision-leads=vision:lead,vision=vision:scientist"

``map_groups`` is pure; ``portal.oidc_backend.QuartermasterOIDCBackend`` applies its result through
the services (memberships are audited like any other change).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from core.roles import TeamRole

ADMIN = "admin"
# When a user is in several mapped groups of one team, the strongest role wins.
_STRENGTH = {TeamRole.SCIENTIST: 1, TeamRole.LEAD: 2}


@dataclass(frozen=True)
class GroupMap:
    """group → "admin", or group → (team slug, role)."""

    admin_groups: frozenset[str] = frozenset()
    team_roles: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def teams(self) -> set[str]:
        return {team for team, _ in self.team_roles.values()}


@dataclass(frozen=True)
class Identity:
    is_platform_admin: bool
    roles: dict[str, str]  # team slug → role


def parse_group_map(entries: list[str]) -> GroupMap:
    """``["gpu-admins=admin", "vision-leads=vision:lead"]`` → GroupMap; ValueError if malformed."""
    admins, roles = set(), {}
    for entry in entries:
        group, sep, target = (part.strip() for part in entry.partition("="))
        if not sep or not group or not target:
            raise ValueError(f"{entry!r}: expected group=admin or group=team:role")
        if target == ADMIN:
            admins.add(group)
            continue
        team, sep, role = target.partition(":")
        if not sep or role not in TeamRole.values or not team:
            raise ValueError(f"{entry!r}: role must be one of {', '.join(TeamRole.values)}")
        roles[group] = (team, role)
    return GroupMap(frozenset(admins), roles)


def map_groups(groups: list[str], mapping: GroupMap) -> Identity:
    """What the provider's groups grant."""
    roles: dict[str, str] = {}
    for group in groups:
        if group in mapping.team_roles:
            team, role = mapping.team_roles[group]
            if _STRENGTH[role] > _STRENGTH.get(roles.get(team), 0):
                roles[team] = role
    return Identity(bool(set(groups) & mapping.admin_groups), roles)


def groups_from_claims(claims: dict) -> list[str]:
    value = claims.get(settings.OIDC_GROUPS_CLAIM) or []
    return [value] if isinstance(value, str) else [str(g) for g in value]
