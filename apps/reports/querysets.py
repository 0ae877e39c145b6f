"""Reads and visibility of reports: admins see every team, members see their teams."""

from __future__ import annotations

from django.db import models

from core import permissions


def visible_team_ids(user) -> set[int] | None:
    """Team ids the user may see in reports; None means all (platform admins)."""
    if not permissions.is_signed_in(user):
        return set()
    if permissions.is_admin(user):
        return None
    return set(user.memberships.values_list("team_id", flat=True))


class TeamScopedQuerySet(models.QuerySet):
    def visible_to(self, user) -> TeamScopedQuerySet:
        team_ids = visible_team_ids(user)
        return self.all() if team_ids is None else self.filter(team_id__in=team_ids)

    def overlapping(self, start, end) -> TeamScopedQuerySet:
        """Workloads alive at some moment of [start, end)."""
        alive = models.Q(finished_at__isnull=True) | models.Q(finished_at__gte=start)
        return self.filter(alive, created_at__lt=end)


class ReportQuerySet(models.QuerySet):
    def visible_to(self, user) -> ReportQuerySet:
        # Every signed-in user may open a week; its content is narrowed per team on render.
        return self.all() if permissions.is_signed_in(user) else self.none()
