"""Enumerations of the what-if domain."""

from django.db import models


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Replaying"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"

    @classmethod
    def active_values(cls) -> tuple[str, ...]:
        return (cls.QUEUED, cls.RUNNING)

    @classmethod
    def terminal_values(cls) -> tuple[str, ...]:
        return (cls.DONE, cls.FAILED)


class ReplayStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


# Replay keys: the two policies compared; nudges are "nudge:<queue>:<+|->".
CURRENT = "current"
PROPOSED = "proposed"
