"""A notebook: one StatefulSet (one replica) plus a Service in a team namespace."""

from django.db import models

from apps.jobs.choices import NotebookState
from apps.jobs.models.base import SubmittedWorkload
from apps.jobs.models.pool import InteractivePool, NotebookProfile
from apps.jobs.querysets import NotebookQuerySet


class Notebook(SubmittedWorkload):
    """A GPU notebook from the interactive pool, with ``cpu`` and ``memory`` from its profile."""

    STATES = NotebookState
    # The moments of its life in the order they happen (``times_out_of_order``).
    TIME_ORDER = ("created_at", "ready_at", "ended_at")

    pool = models.ForeignKey(InteractivePool, on_delete=models.PROTECT, related_name="notebooks")
    gpus = models.PositiveIntegerField()
    profile = models.ForeignKey(NotebookProfile, on_delete=models.PROTECT, related_name="+")

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
            *SubmittedWorkload.Meta.constraints,
            models.UniqueConstraint(fields=["namespace", "name"], name="one_notebook_name"),
        ]
        indexes = [models.Index(fields=["owner", "state"]), models.Index(fields=["state"])]

    @property
    def total_gpus(self) -> int:
        return self.gpus

    @property
    def pod_name(self) -> str:
        return f"{self.name}-0"
