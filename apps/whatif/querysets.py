"""Reads and visibility: admins see every what-if run, everyone else their own and the
runs the portal started for suggestions on queues they lead."""

from __future__ import annotations

from django.db import models

from apps.whatif.choices import SuggestionState
from core import permissions
from core.roles import TeamRole


class WhatIfRunQuerySet(models.QuerySet):
    def visible_to(self, user) -> WhatIfRunQuerySet:
        if not permissions.is_signed_in(user):
            return self.none()
        if permissions.is_admin(user):
            return self.all()
        # A suggestion's what-if is shown on the suggestions page to the queue's leads,
        # so its full result must open for them too, whoever started it.
        led = _led_team_ids(user)
        return self.filter(
            models.Q(requested_by=user) | models.Q(suggestions__queue__team_id__in=led)
        ).distinct()


class PolicySuggestionQuerySet(models.QuerySet):
    def visible_to(self, user) -> PolicySuggestionQuerySet:
        """Admins: every suggestion; leads: those on their teams' queues; others: none."""
        if not permissions.is_signed_in(user):
            return self.none()
        if permissions.is_admin(user):
            return self.all()
        return self.filter(queue__team_id__in=_led_team_ids(user))

    def shown_to(self, user) -> PolicySuggestionQuerySet:
        """What the page and the API list: ``visible_to``, less those the cluster refused
        unless the viewer is an admin (a lead cannot act on a draft the cluster refuses)."""
        visible = self.visible_to(user)
        if permissions.is_admin(user):
            return visible
        return visible.exclude(state=SuggestionState.REFUSED)


def _led_team_ids(user) -> models.QuerySet:
    return user.memberships.filter(role=TeamRole.LEAD).values("team_id")


class EtaPredictionQuerySet(models.QuerySet):
    def unscored(self) -> EtaPredictionQuerySet:
        return self.filter(actual_start__isnull=True, predicted_start__isnull=False)

    def scored(self) -> EtaPredictionQuerySet:
        return self.filter(error_seconds__isnull=False)
