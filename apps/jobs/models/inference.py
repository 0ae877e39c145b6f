"""An inference service: a long-running StatefulSet of identical replicas in a
production queue, admitted all together by Kueue (docs/inference.md)."""

from django.db import models

from apps.jobs.choices import InferenceState
from apps.jobs.models.base import SubmittedWorkload
from apps.jobs.querysets import InferenceServiceQuerySet
from apps.queues.models import PriorityTier, Queue


class InferenceService(SubmittedWorkload):
    """``replicas`` pods of ``gpus_per_replica`` GPUs each, served until stopped."""

    STATES = InferenceState
    # The moments of its life in the order they happen (``times_out_of_order``).
    TIME_ORDER = ("created_at", "serving_since", "ended_at")

    queue = models.ForeignKey(Queue, on_delete=models.PROTECT, related_name="inference_services")
    priority_tier = models.ForeignKey(PriorityTier, on_delete=models.PROTECT, related_name="+")
    command = models.JSONField(default=list, blank=True)
    replicas = models.PositiveIntegerField()
    gpus_per_replica = models.PositiveIntegerField()
    state = models.CharField(
        max_length=20, choices=InferenceState.choices, default=InferenceState.REQUESTED
    )
    ready_replicas = models.PositiveIntegerField(default=0)
    serving_since = models.DateTimeField(null=True, blank=True)

    objects = InferenceServiceQuerySet.as_manager()

    class Meta(SubmittedWorkload.Meta):
        constraints = [
            *SubmittedWorkload.Meta.constraints,
            models.UniqueConstraint(fields=["namespace", "name"], name="one_inference_name"),
        ]
        indexes = [models.Index(fields=["team", "state"]), models.Index(fields=["state"])]

    @property
    def total_gpus(self) -> int:
        return self.gpus_per_replica * self.replicas
