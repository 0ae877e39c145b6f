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


class SuggestionState(models.TextChoices):
    """Offered: the cluster's dry run accepted it. Refused: the cluster refused it or
        could not answer. Dismissed: a lead or admin set it aside (kept, with who, when and
    why). Superseded: a later look no longer proposes it for these weeks."""

    OFFERED = "offered", "Offered"
    REFUSED = "refused", "Refused by the cluster"
    DISMISSED = "dismissed", "Dismissed"
    SUPERSEDED = "superseded", "Superseded"

    @classmethod
    def open_values(cls) -> tuple[str, ...]:
        """The states a person may still act on (apply or dismiss)."""
        return (cls.OFFERED, cls.REFUSED)
