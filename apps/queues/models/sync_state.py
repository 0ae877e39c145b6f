"""What the reconciler last did to each cluster object, and a record of each run.

Written only by ``apps.queues.services.reconcile_records``; read by the queue page, the
cluster sync page and the reconciler itself (``applied`` is how it tells drift
from a policy change).
"""

from django.db import models

from apps.queues.choices import SyncState
from apps.queues.models.policy import Queue


class SyncObject(models.Model):
    """One Kueue object (or Namespace) the portal manages."""

    kind = models.CharField(max_length=40)
    namespace = models.CharField(max_length=63, blank=True)
    name = models.CharField(max_length=253)
    queue = models.ForeignKey(
        Queue, null=True, blank=True, on_delete=models.SET_NULL, related_name="sync_objects"
    )
    state = models.CharField(max_length=20, choices=SyncState.choices, default=SyncState.PENDING)
    message = models.TextField(blank=True)
    # Owned fields as last written (field path → value); null until the first write.
    applied = models.JSONField(null=True, blank=True)
    policy_version = models.PositiveIntegerField(null=True, blank=True)
    last_applied_at = models.DateTimeField(null=True, blank=True)
    observed_generation = models.BigIntegerField(null=True, blank=True)
    resource_version = models.CharField(max_length=64, blank=True)
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["kind", "namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "namespace", "name"], name="one_sync_row")
        ]

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.namespace, self.name)


class SyncRun(models.Model):
    """One reconcile run: when, why, and its summary (or why it could not run)."""

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    trigger = models.CharField(max_length=20)
    summary = models.JSONField(default=dict)
    error = models.TextField(blank=True)
    # Set only by full runs without errors: the catalog they converged on (see
    # reconcile.incremental); lets change-triggered runs take the fast path.
    catalog_fingerprint = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]

    def __str__(self) -> str:
        return f"reconcile at {self.started_at:%Y-%m-%d %H:%M:%S} ({self.trigger})"


class ForeignClusterQueue(models.Model):
    """A ClusterQueue without our managed-by label, as the last full reconcile saw it.

    The portal never writes it to the cluster; its nominal quota is reserved capacity
    all the same, so the capacity figures count it and the pages warn about it.
    Written only by ``services.reconcile_records.record_foreign_cluster_queues``.
    """

    name = models.CharField(max_length=253, unique=True)
    cohort = models.CharField(max_length=253, blank=True)
    # Quota snapshots (``apps.queues.snapshots`` form): flavor, resource, nominal, limits.
    quotas = models.JSONField(default=list)
    seen_at = models.DateTimeField()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
