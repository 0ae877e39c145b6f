"""Reads and visibility. Every list a user sees is filtered by ``visible_to``.

Quota policy is deliberately transparent: any signed-in user may read every
team's queues (fair share is only believable when everyone can see it).
Change requests and audit history are scoped to the team's members; an audit entry
about an object another app keeps private (a notebook) only to who may see the object.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from core.audit import private_audit_subjects


def _anonymous(user) -> bool:
    return user is None or not user.is_authenticated


def _member_team_ids(user) -> models.QuerySet:
    return user.memberships.values("team_id")


class SignedInQuerySet(models.QuerySet):
    """Catalog data every signed-in user may read."""

    def visible_to(self, user) -> SignedInQuerySet:
        return self.none() if _anonymous(user) else self.all()


class TeamQuerySet(SignedInQuerySet):
    def with_details(self) -> TeamQuerySet:
        return self.prefetch_related("namespaces", "queues")


class TeamNamespaceQuerySet(models.QuerySet):
    def workloads_visible_to(self, user) -> TeamNamespaceQuerySet:
        """Namespaces whose running and waiting workloads ``user`` may see by name.

        Quotas and queue totals are for everyone; which workloads a team runs is team
        business, as its batch jobs are: members see their teams' namespaces, admins all.
        """
        if _anonymous(user):
            return self.none()
        if user.is_platform_admin:
            return self.all()
        return self.filter(team_id__in=_member_team_ids(user))


class QueueQuerySet(SignedInQuerySet):
    def with_policy(self) -> QueueQuerySet:
        """Everything needed to render a queue's policy without further queries."""
        return self.select_related("team", "cohort").prefetch_related("quotas__flavor")


class ChangeRequestQuerySet(models.QuerySet):
    def visible_to(self, user) -> ChangeRequestQuerySet:
        if _anonymous(user):
            return self.none()
        if user.is_platform_admin:
            return self.all()
        return self.filter(queue__team_id__in=_member_team_ids(user))

    def pending(self) -> ChangeRequestQuerySet:
        from apps.queues.choices import ChangeRequestStatus

        return self.filter(status__in=ChangeRequestStatus.open_values())


class AuditQuerySet(models.QuerySet):
    def visible_to(self, user) -> AuditQuerySet:
        if _anonymous(user):
            return self.none()
        if user.is_platform_admin:
            return self.all()
        entries = self.filter(team_id__in=_member_team_ids(user))
        for object_type, visible_ids in private_audit_subjects().items():
            entries = entries.filter(
                ~Q(object_type=object_type) | Q(object_id__in=visible_ids(user))
            )
        return entries

    # The audit log is append-only: refuse bulk rewrites too.
    def update(self, **kwargs):
        raise PermissionError("audit entries are append-only")

    def delete(self):
        raise PermissionError("audit entries are append-only")
