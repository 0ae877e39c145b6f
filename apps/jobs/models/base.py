"""What a notebook and a batch job have in common: a record of one workload we submit.

Both are a request saved here first (with its idempotency key), then cluster objects
in a team namespace that Kueue admits as one Workload, whose state we read back.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.accounts.models import ApiToken
from apps.queues.models import ResourceFlavor, Team


class IdempotentRequest(models.Model):
    """A request saved once however often it is retried: who sent it, and its key.

    ``requested_by`` is the principal that asked (the owner, or a launcher token's user
    acting for them, see ``via_token``). ``(requested_by, idempotency_key)`` is unique,
    so a retried request finds the first row instead of making a second one
    (``services.idempotency``).
    """

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    via_token = models.ForeignKey(
        ApiToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    idempotency_key = models.CharField(max_length=255, blank=True)
    request_hash = models.CharField(max_length=64, blank=True)

    class Meta:
        abstract = True
        constraints = [
            models.UniqueConstraint(
                fields=["requested_by", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="one_%(class)s_per_idempotency_key",
            ),
        ]


class SubmittedWorkload(IdempotentRequest):
    """The fields, the idempotency rule and the state helpers a notebook and a batch job share.

    ``owner`` is who the workload is for; who asked, and the request's idempotency key,
    are ``IdempotentRequest``'s.

    Each subclass names its ``STATES`` (a TextChoices with ``active_values``,
    ``followed_values`` and ``terminal_values``) and declares ``state`` itself, with
    those choices and its own first state as the default. ``cpu`` and ``memory`` may be
    blank: a job asks only for what its queue covers (Kueue blocks the rest).
    """

    STATES: type[models.TextChoices]

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="%(class)ss"
    )
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="%(class)ss")
    cpu = models.CharField(max_length=64, blank=True)
    memory = models.CharField(max_length=64, blank=True)
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

    class Meta(IdempotentRequest.Meta):
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
