"""A notebook: one StatefulSet (one replica) plus a Service in a team namespace."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.accounts.models import ApiToken
from apps.jobs.choices import NotebookState
from apps.jobs.models.pool import InteractivePool, NotebookProfile
from apps.jobs.querysets import NotebookQuerySet
from apps.queues.models import ResourceFlavor, Team


class Notebook(models.Model):
    """A GPU notebook from the interactive pool.

    ``owner`` is who the notebook is for; ``requested_by`` is the principal that asked
    (the owner, or a launcher token's user acting for them, see ``via_token``).
    ``(requested_by, idempotency_key)`` is unique so a retried create finds the first
    notebook instead of making a second one. ``version`` guards status updates.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="notebooks"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    via_token = models.ForeignKey(
        ApiToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    idempotency_key = models.CharField(max_length=255, blank=True)
    request_hash = models.CharField(max_length=64, blank=True)

    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="notebooks")
    namespace = models.CharField(max_length=63)
    name = models.CharField(max_length=63)
    display_name = models.CharField(max_length=100, blank=True)
    pool = models.ForeignKey(InteractivePool, on_delete=models.PROTECT, related_name="notebooks")
    flavor = models.ForeignKey(ResourceFlavor, on_delete=models.PROTECT, related_name="+")
    gpu_resource = models.CharField(max_length=253)
    gpus = models.PositiveIntegerField()
    image = models.CharField(max_length=500)
    profile = models.ForeignKey(NotebookProfile, on_delete=models.PROTECT, related_name="+")
    cpu = models.CharField(max_length=64)
    memory = models.CharField(max_length=64)

    state = models.CharField(
        max_length=20, choices=NotebookState.choices, default=NotebookState.REQUESTED
    )
    state_reason = models.TextField(blank=True)
    pending_reason = models.TextField(blank=True)
    queue_position = models.PositiveIntegerField(null=True, blank=True)
    workload_name = models.CharField(max_length=253, blank=True)
    url = models.CharField(max_length=500, blank=True)

    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    expiry_warned_at = models.DateTimeField(null=True, blank=True)
    ready_at = models.DateTimeField(null=True, blank=True)
    idle_warned_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    synced_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=1)

    objects = NotebookQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["requested_by", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="one_notebook_per_idempotency_key",
            ),
            models.UniqueConstraint(fields=["namespace", "name"], name="one_notebook_name"),
        ]
        indexes = [models.Index(fields=["owner", "state"]), models.Index(fields=["state"])]

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def is_active(self) -> bool:
        return self.state in NotebookState.active_values()

    @property
    def pod_name(self) -> str:
        return f"{self.name}-0"
