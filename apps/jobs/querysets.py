"""Reads and visibility of notebooks and jobs. Every list is filtered by ``visible_to``.

Notebooks are private-ish (their URL opens a session): the owner, whoever requested
them (a launcher), leads of the team and admins see them. Batch jobs are team
business: every member of the team sees them. Anything else answers 404, the same
as a missing id.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.db.models.functions import Cast

# Columns NotebookSerializer reads, and the version the status cache is keyed by.
STATUS_FIELDS = (
    "id", "name", "display_name", "namespace", "state", "state_reason", "pending_reason",
    "queue_position", "url", "image", "gpus", "cpu", "memory", "created_at", "ready_at",
    "expires_at", "expiry_warned_at", "idle_warned_at", "ended_at", "owner__username",
    "requested_by__username", "team__slug", "flavor__name", "profile__name", "version",
)  # fmt: skip


def _anonymous(user) -> bool:
    return user is None or not user.is_authenticated


def _team_ids(user, *, role: str | None = None) -> models.QuerySet:
    from apps.queues.models import Membership

    rows = Membership.objects.filter(user=user)
    if role:
        rows = rows.filter(role=role)
    return rows.values("team_id")


class NotebookQuerySet(models.QuerySet):
    def visible_to(self, user) -> NotebookQuerySet:
        from core.roles import TeamRole

        if _anonymous(user):
            return self.none()
        if user.is_platform_admin:
            return self.all()
        return self.filter(
            Q(owner=user)
            | Q(requested_by=user)
            | Q(team_id__in=_team_ids(user, role=TeamRole.LEAD))
        )

    def audit_ids_visible_to(self, user) -> models.QuerySet:
        """Ids of the notebooks ``user`` sees, as text: audit entries name them that way."""
        key = Cast("pk", output_field=models.CharField())
        return self.visible_to(user).annotate(audit_id=key).values("audit_id")

    def active(self) -> NotebookQuerySet:
        from apps.jobs.choices import NotebookState

        return self.filter(state__in=NotebookState.active_values())

    def with_related(self) -> NotebookQuerySet:
        return self.select_related("owner", "requested_by", "team", "flavor", "profile", "pool")

    def for_status(self) -> NotebookQuerySet:
        """Just what ``NotebookSerializer`` renders: the status poll is the hottest read, and
        every extra join (the pool) or wide row (two whole users) costs planning and transfer."""
        return self.select_related("owner", "requested_by", "team", "flavor", "profile").only(
            *STATUS_FIELDS
        )


class BatchJobQuerySet(models.QuerySet):
    def visible_to(self, user) -> BatchJobQuerySet:
        if _anonymous(user):
            return self.none()
        if user.is_platform_admin:
            return self.all()
        return self.filter(Q(owner=user) | Q(team_id__in=_team_ids(user)))

    def active(self) -> BatchJobQuerySet:
        from apps.jobs.choices import JobState

        return self.filter(state__in=JobState.active_values())

    def with_related(self) -> BatchJobQuerySet:
        return self.select_related("owner", "team", "flavor", "priority_tier", "queue")
