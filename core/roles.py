"""The roles a member holds in a team: what ``core.permissions`` decides on."""

from __future__ import annotations

from django.db import models


class TeamRole(models.TextChoices):
    LEAD = "lead", "Team lead"
    SCIENTIST = "scientist", "Scientist"
