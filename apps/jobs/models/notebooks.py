"""A notebook: one StatefulSet (one replica) plus a Service in a team namespace."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.accounts.models import ApiToken
from apps.jobs.choices import NotebookState
from apps.jobs.models.base import SubmittedWorkload
from apps.jobs.models.pool import InteractivePool, NotebookProfile
from apps.jobs.querysets import NotebookQuerySet
from apps.queues.models import Team


class Notebook(SubmittedWorkload):
    """A GPU notebook from the interactive pool.

    ``owner`` is who the notebook is for; ``requested_by`` is the principal that asked
    (the owner, or a launcher token's user acting for them, see ``via_token``).
    ``(requested_by, idempotency_key)`` is unique so a retried create finds the first
    notebook instead of making a second one.
    """

    IDEMPOTENCY_SCOPE = "requested_by"
    STATES = NotebookState
    # The moments of its life in the order they happen (``times_out_of_order``).
    TIME_ORDER = ("created_at", "ready_at", "ended_at")

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="notebooks"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    via_token = models.ForeignKey(
        ApiToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="notebooks")
    pool = models.ForeignKey(InteractivePool, on_delete=models.PROTECT, related_name="notebooks")
    gpus = models.PositiveIntegerField()
    profile = models.ForeignKey(NotebookProfile, on_delete=models.PROTECT, related_name="+")
    cpu = models.CharField(max_length=64)
    memory = models.CharField(max_length=64)

    state = models.CharField(
        max_length=20, choices=NotebookState.choices, default=NotebookState.REQUESTED
    )
    url = models.CharField(max_length=500, blank=True)
    expires_at = models.DateTimeField()
    expiry_warned_at = models.DateTimeField(null=True, blank=True)
    ready_at = models.DateTimeField(null=True, blank=True)
    idle_warned_at = models.DateTimeField(null=True, blank=True)

    objects = NotebookQuerySet.as_manager()

    class Meta(SubmittedWorkload.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["requested_by", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="one_notebook_per_idempotency_key",
            ),
            models.UniqueConstraint(fields=["namespace", "name"], name="one_notebook_name"),
        ]
        indexes = [models.Index(fields=["owner", "state"]), models.Index(fields=["state"])]

    @property
    def total_gpus(self) -> int:
        return self.gpus

    @property
    def pod_name(self) -> str:
        return f"{self.name}-0"
