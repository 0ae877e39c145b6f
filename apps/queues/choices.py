"""Enumerations of the quota domain. Values are Kueue's own spellings where Kueue has one."""

from django.db import models


class QueueingStrategy(models.TextChoices):
    BEST_EFFORT_FIFO = "BestEffortFIFO", "BestEffortFIFO"
    STRICT_FIFO = "StrictFIFO", "StrictFIFO"


class StopPolicy(models.TextChoices):
    NONE = "None", "None"
    HOLD = "Hold", "Hold"
    HOLD_AND_DRAIN = "HoldAndDrain", "HoldAndDrain"


class ReclaimWithinCohort(models.TextChoices):
    NEVER = "Never", "Never"
    LOWER_PRIORITY = "LowerPriority", "LowerPriority"
    ANY = "Any", "Any"


class WithinClusterQueue(models.TextChoices):
    NEVER = "Never", "Never"
    LOWER_PRIORITY = "LowerPriority", "LowerPriority"
    LOWER_OR_NEWER_EQUAL_PRIORITY = "LowerOrNewerEqualPriority", "LowerOrNewerEqualPriority"


class BorrowWithinCohort(models.TextChoices):
    NEVER = "Never", "Never"
    LOWER_PRIORITY = "LowerPriority", "LowerPriority"


class ChangeRequestStatus(models.TextChoices):
    PENDING = "pending", "Pending approval"
    APPROVED = "approved", "Approved and applied"
    REJECTED = "rejected", "Rejected"
    WITHDRAWN = "withdrawn", "Withdrawn"
    EXPIRED = "expired", "Expired"

    @classmethod
    def open_values(cls) -> tuple[str, ...]:
        return (cls.PENDING,)

    @classmethod
    def terminal_values(cls) -> tuple[str, ...]:
        return (cls.APPROVED, cls.REJECTED, cls.WITHDRAWN, cls.EXPIRED)


class SyncState(models.TextChoices):
    IN_SYNC = "in_sync", "In sync"
    PENDING = "pending", "Pending"
    DRIFT_REPAIRED = "drift_repaired", "Drift repaired"
    ERROR = "error", "Error"
