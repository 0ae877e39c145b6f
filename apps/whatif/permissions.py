"""Who may run what-ifs and read ETAs; builds on ``apps.queues.permissions``."""

from __future__ import annotations

from apps.queues import permissions
from apps.queues.choices import TeamRole
from apps.queues.models import TeamNamespace


def can_run_whatif(user) -> bool:
    """Admins and team leads (who may draft only queues they may edit)."""
    if permissions.is_admin(user):
        return True
    return permissions.is_signed_in(user) and user.memberships.filter(role=TeamRole.LEAD).exists()


def can_view_eta(user, namespace: str) -> bool:
    """Admins see every ETA; members see those of their team's namespaces."""
    if permissions.is_admin(user):
        return True
    owner = TeamNamespace.objects.filter(name=namespace).select_related("team").first()
    return owner is not None and permissions.is_member_of(user, owner.team)
