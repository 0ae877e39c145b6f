"""What a notebook and a batch job have in common: a record of one workload we submit.

Both are a request saved here first (with its idempotency key), then cluster objects
in a team namespace that Kueue admits as one Workload, whose state we read back.
"""

from __future__ import annotations

from django.db import models

from apps.queues.models import ResourceFlavor


class SubmittedWorkload(models.Model):
    """The fields and state helpers a notebook and a batch job share.

    Each subclass names its ``STATES`` (a TextChoices with ``active_values``,
    ``followed_values`` and ``terminal_values``) and its ``IDEMPOTENCY_SCOPE`` (the
    user field its unique constraint pairs with ``idempotency_key``). It declares
    ``owner``, ``team``, ``state``, ``cpu`` and ``memory`` itself: their reverse names,
    defaults and blanks differ, and keeping them as they were keeps the tables (and the
    migrations) as they were. The unique constraints and indexes stay on the subclasses
    too, under the names the database knows.
    """

    STATES: type[models.TextChoices]
    IDEMPOTENCY_SCOPE: str

    idempotency_key = models.CharField(max_length=255, blank=True)
    request_hash = models.CharField(max_length=64, blank=True)
    namespace = models.CharField(max_length=63)
    name = models.CharField(max_length=63)
    display_name = models.CharField(max_length=100, blank=True)
    image = models.CharField(max_length=500)
    flavor = models.ForeignKey(ResourceFlavor, on_delete=models.PROTECT, related_name="+")
    gpu_resource = models.CharField(max_length=253)

    state_reason = models.TextField(blank=True)
    pending_reason = models.TextField(blank=True)
    queue_position = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Position in its LocalQueue while queued, 1-based: 1 is next to be admitted.",
    )
    workload_name = models.CharField(max_length=253, blank=True)
    created_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    synced_at = models.DateTimeField(null=True, blank=True)
    # Bumped by every status write; status updates are conditional on the version read.
    version = models.PositiveIntegerField(default=1)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def is_active(self) -> bool:
        """Holds (or waits for) its GPUs: not ended."""
        return self.state in self.STATES.active_values()

    @property
    def total_gpus(self) -> int:
        raise NotImplementedError
