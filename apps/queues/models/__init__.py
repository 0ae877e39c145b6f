"""Models of the quota domain, one module per concern."""

from apps.queues.models.demo_seed import DemoSeed
from apps.queues.models.policy import (
    AuditEntry,
    ChangeRequest,
    Cohort,
    Envelope,
    EnvelopeLimit,
    FlavorCapacity,
    Membership,
    PriorityTier,
    Queue,
    QuotaEntry,
    ResourceFlavor,
    Team,
    TeamNamespace,
)
from apps.queues.models.sync_state import ForeignClusterQueue, SyncObject, SyncRun

__all__ = [
    "AuditEntry",
    "ChangeRequest",
    "Cohort",
    "DemoSeed",
    "Envelope",
    "EnvelopeLimit",
    "FlavorCapacity",
    "ForeignClusterQueue",
    "Membership",
    "PriorityTier",
    "Queue",
    "QuotaEntry",
    "ResourceFlavor",
    "SyncObject",
    "SyncRun",
    "Team",
    "TeamNamespace",
]
