"""Quota policy: teams, flavors, cohorts, priority tiers, queues, envelopes,
change requests and the audit log.

Rows here are the *desired* state; the reconciler renders them into Kueue
objects. Every write goes through ``apps.queues.services``.
"""

from django.conf import settings
from django.db import models

from apps.queues.choices import (
    BorrowWithinCohort,
    ChangeRequestStatus,
    QueueingStrategy,
    ReclaimWithinCohort,
    StopPolicy,
    WithinClusterQueue,
)
from apps.queues.querysets import (
    AuditQuerySet,
    ChangeRequestQuerySet,
    QueueQuerySet,
    SignedInQuerySet,
    TeamNamespaceQuerySet,
    TeamQuerySet,
)
from core.audit import AuditAction
from core.roles import TeamRole


class Team(models.Model):
    """A group of people sharing GPU quota; owns namespaces and queues."""

    slug = models.CharField(max_length=63, unique=True)
    display_name = models.CharField(max_length=200)
    cost_center = models.CharField(max_length=63, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TeamQuerySet.as_manager()

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class TeamNamespace(models.Model):
    """A Kubernetes namespace where the team's workloads run.

    The reconciler creates it, or leaves it alone when it already exists without our
    label, until an admin adopts it (``adopted_at``; the reason is in the audit log).
    """

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="namespaces")
    name = models.CharField(max_length=63, unique=True)
    adopted_at = models.DateTimeField(null=True, blank=True)

    objects = TeamNamespaceQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's role in one team."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=TeamRole.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "team"], name="one_role_per_team")]

    def __str__(self) -> str:
        return f"{self.user} is {self.role} of {self.team}"


class ResourceFlavor(models.Model):
    """A kind of node (GPU model, MIG profile…) with its physical capacity."""

    name = models.CharField(max_length=253, unique=True)
    gpu_model = models.CharField(max_length=100, blank=True)
    description = models.TextField(blank=True)
    node_labels = models.JSONField(default=dict, blank=True)
    node_taints = models.JSONField(default=list, blank=True)
    tolerations = models.JSONField(default=list, blank=True)
    # Kueue Topology levels, widest first: [{"name": "rack", "node_label": "example.com/rack"}].
    # Fixed once set (Kueue never changes a Topology's levels nor a flavor's topologyName).
    topology_levels = models.JSONField(default=list, blank=True)

    objects = SignedInQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class FlavorCapacity(models.Model):
    """Physical capacity of one resource on a flavor, e.g. 64 × nvidia.com/gpu."""

    flavor = models.ForeignKey(ResourceFlavor, on_delete=models.CASCADE, related_name="capacities")
    resource = models.CharField(max_length=253)
    capacity = models.CharField(max_length=64)

    class Meta:
        ordering = ["flavor__name", "resource"]
        constraints = [
            models.UniqueConstraint(fields=["flavor", "resource"], name="one_capacity_per_resource")
        ]

    def __str__(self) -> str:
        return f"{self.flavor}/{self.resource}={self.capacity}"


class Cohort(models.Model):
    """A set of queues that lend each other unused quota; may nest under a parent."""

    name = models.CharField(max_length=253, unique=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    fair_weight = models.CharField(max_length=64, default="1")
    description = models.TextField(blank=True)

    objects = SignedInQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class PriorityTier(models.Model):
    """A WorkloadPriorityClass: P0–P3 style tiers with their intended use."""

    name = models.CharField(max_length=63, unique=True)
    value = models.IntegerField()
    description = models.CharField(max_length=2048, blank=True)
    # Production inference's tier (docs/inference.md): only inference services may use
    # it, so no batch job or notebook ever outranks or shares it.
    inference_only = models.BooleanField(default=False)

    objects = SignedInQuerySet.as_manager()

    class Meta:
        ordering = ["-value"]

    def __str__(self) -> str:
        return f"{self.name} ({self.value})"


class Queue(models.Model):
    """One ClusterQueue (plus a LocalQueue per team namespace).

    ``version`` guards against lost updates: every save must name the version
    it was based on, and bumps it.
    """

    name = models.CharField(max_length=63, unique=True)
    team = models.ForeignKey(
        Team, null=True, blank=True, on_delete=models.PROTECT, related_name="queues"
    )
    cohort = models.ForeignKey(
        Cohort, null=True, blank=True, on_delete=models.PROTECT, related_name="queues"
    )
    description = models.TextField(blank=True)
    fair_weight = models.CharField(max_length=64, default="1")
    queueing_strategy = models.CharField(
        max_length=20, choices=QueueingStrategy.choices, default=QueueingStrategy.BEST_EFFORT_FIFO
    )
    stop_policy = models.CharField(
        max_length=20, choices=StopPolicy.choices, default=StopPolicy.NONE
    )
    reclaim_within_cohort = models.CharField(
        max_length=20, choices=ReclaimWithinCohort.choices, default=ReclaimWithinCohort.NEVER
    )
    within_cluster_queue = models.CharField(
        max_length=30, choices=WithinClusterQueue.choices, default=WithinClusterQueue.NEVER
    )
    borrow_within_cohort = models.CharField(
        max_length=20, choices=BorrowWithinCohort.choices, default=BorrowWithinCohort.NEVER
    )
    borrow_max_priority_threshold = models.IntegerField(null=True, blank=True)
    # Kueue's AdmissionFairSharing between the team's members: each gets a LocalQueue
    # of their own, ordered by recent usage (docs/fair-sharing-between-users.md).
    fair_between_users = models.BooleanField(default=False)
    # A production queue (docs/inference.md) never borrows and never lends: batch
    # queues can neither use its quota nor reclaim from it. Set when the queue is created.
    production = models.BooleanField(default=False)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = QueueQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class QuotaEntry(models.Model):
    """Nominal quota and limits of one resource of one flavor in a queue.

    ``rank`` orders flavors inside the queue: Kueue tries them in that order.
    """

    queue = models.ForeignKey(Queue, on_delete=models.CASCADE, related_name="quotas")
    flavor = models.ForeignKey(ResourceFlavor, on_delete=models.PROTECT, related_name="quotas")
    resource = models.CharField(max_length=253)
    rank = models.PositiveIntegerField(default=0)
    nominal = models.CharField(max_length=64)
    borrowing_limit = models.CharField(max_length=64, null=True, blank=True)
    lending_limit = models.CharField(max_length=64, null=True, blank=True)

    class Meta:
        ordering = ["rank", "flavor__name", "resource"]
        constraints = [
            models.UniqueConstraint(
                fields=["queue", "flavor", "resource"], name="one_quota_per_flavor_resource"
            )
        ]

    def __str__(self) -> str:
        return f"{self.queue}:{self.flavor}/{self.resource}"


class Envelope(models.Model):
    """What a team lead may set without an admin's approval."""

    team = models.OneToOneField(Team, on_delete=models.CASCADE, related_name="envelope")
    min_weight = models.CharField(max_length=64, null=True, blank=True)
    max_weight = models.CharField(max_length=64, null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"envelope of {self.team}"


class EnvelopeLimit(models.Model):
    """Per flavor × resource: the largest nominal quota and borrowing limit a lead may set."""

    envelope = models.ForeignKey(Envelope, on_delete=models.CASCADE, related_name="limits")
    flavor = models.ForeignKey(ResourceFlavor, on_delete=models.CASCADE, related_name="+")
    resource = models.CharField(max_length=253)
    max_nominal = models.CharField(max_length=64)
    max_borrowing = models.CharField(max_length=64, null=True, blank=True)

    class Meta:
        ordering = ["flavor__name", "resource"]
        constraints = [
            models.UniqueConstraint(
                fields=["envelope", "flavor", "resource"], name="one_envelope_limit"
            )
        ]

    def __str__(self) -> str:
        return f"{self.envelope}: {self.flavor}/{self.resource} ≤ {self.max_nominal}"


class ChangeRequest(models.Model):
    """A lead's queue edit beyond the team envelope, waiting for an admin."""

    queue = models.ForeignKey(Queue, on_delete=models.CASCADE, related_name="change_requests")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    base_version = models.PositiveIntegerField()
    proposed = models.JSONField()
    changes = models.JSONField()
    beyond_envelope = models.JSONField(default=list)
    reason = models.TextField(blank=True)
    status = models.CharField(
        max_length=20, choices=ChangeRequestStatus.choices, default=ChangeRequestStatus.PENDING
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_comment = models.TextField(blank=True)
    applied_version = models.PositiveIntegerField(null=True, blank=True)

    objects = ChangeRequestQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"change request #{self.pk} on {self.queue}"

    @property
    def is_open(self) -> bool:
        return self.status in ChangeRequestStatus.open_values()


class AuditEntry(models.Model):
    """One recorded change. Append-only: rows are never updated or deleted."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150)
    action = models.CharField(max_length=30, choices=AuditAction.choices)
    team = models.ForeignKey(
        Team, null=True, blank=True, on_delete=models.SET_NULL, related_name="audit_entries"
    )
    object_type = models.CharField(max_length=50)
    object_id = models.CharField(max_length=64)
    object_repr = models.CharField(max_length=300)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    changes = models.JSONField(default=list)
    reason = models.TextField(blank=True)
    change_request = models.ForeignKey(
        ChangeRequest, null=True, blank=True, on_delete=models.SET_NULL, related_name="audit"
    )

    objects = AuditQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.object_repr}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise PermissionError("audit entries are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("audit entries are append-only")
