"""Reads and visibility: admins see every what-if run, everyone else their own."""

from __future__ import annotations

from django.db import models

from core import permissions


class WhatIfRunQuerySet(models.QuerySet):
    def visible_to(self, user) -> WhatIfRunQuerySet:
        if not permissions.is_signed_in(user):
            return self.none()
        if permissions.is_admin(user):
            return self.all()
        return self.filter(requested_by=user)


class EtaPredictionQuerySet(models.QuerySet):
    def unscored(self) -> EtaPredictionQuerySet:
        return self.filter(actual_start__isnull=True, predicted_start__isnull=False)

    def scored(self) -> EtaPredictionQuerySet:
        return self.filter(error_seconds__isnull=False)
