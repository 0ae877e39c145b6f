"""Enumerations of the reports domain."""

from django.db import models


class GapCause(models.TextChoices):
    """Why the recorder lost the thread of Workload history for a while."""

    WATCH_EXPIRED = (
        "watch_expired",
        "Watch resume refused (410 Gone): the API server's history had moved on",
    )


class Outcome(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Admitted"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    DELETED = "deleted", "Deleted before finishing"

    @classmethod
    def active_values(cls) -> tuple[str, ...]:
        return (cls.PENDING, cls.RUNNING)

    @classmethod
    def terminal_values(cls) -> tuple[str, ...]:
        return (cls.SUCCEEDED, cls.FAILED, cls.DELETED)


class SizeClass(models.TextChoices):
    """Job-size classes of the weekly report (GPUs requested, summed over pods)."""

    ONE = "1", "1 GPU"
    SMALL = "2-4", "2–4 GPUs"
    NODE = "8", "5–8 GPUs (one node)"
    MULTI_NODE = "multi-node", "More than 8 GPUs or several pods with GPUs"
    NONE = "0", "No GPU"
