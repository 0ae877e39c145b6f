"""What-if runs (a draft replayed against recorded history), their replays, and ETAs.

Every write goes through ``apps.whatif.services``.
"""

from django.conf import settings
from django.db import models

from apps.whatif.choices import ReplayStatus, RunStatus, SuggestionState
from apps.whatif.querysets import (
    EtaPredictionQuerySet,
    PolicySuggestionQuerySet,
    WhatIfRunQuerySet,
)


class WhatIfRun(models.Model):
    """A draft policy replayed over the last ``days`` of history next to the current one.

    ``policies`` keeps the rendered Kueue objects of both sides as they were when
    the run was requested, so a later policy change cannot alter its results.
    """

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True
    )
    """Empty for a run the portal started itself (the weekly policy suggestions)."""
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=12, choices=RunStatus.choices, default=RunStatus.QUEUED)
    draft = models.JSONField()
    base_versions = models.JSONField(default=dict)
    changes = models.JSONField(default=dict, blank=True)
    """Per drafted queue, at request time: ``{"changes": [field diff], "breaches": [...]}``."""
    reason = models.TextField(blank=True)
    days = models.PositiveIntegerField()
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    fair_sharing = models.BooleanField(default=False)
    policies = models.JSONField(default=dict)
    entitled = models.JSONField(default=dict)
    capacity_gpus = models.FloatField(default=0)
    replays_total = models.PositiveIntegerField(default=0)
    replays_done = models.PositiveIntegerField(default=0)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = WhatIfRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"what-if #{self.pk}"

    @property
    def progress_percent(self) -> int:
        if self.status == RunStatus.DONE:
            return 100
        return int(100 * self.replays_done / self.replays_total) if self.replays_total else 0

    @property
    def is_finished(self) -> bool:
        return self.status in RunStatus.terminal_values()


class Replay(models.Model):
    """One cohort tree replayed under one policy variant (the current policy, the
    proposal, or a ±10% weight nudge); ``key`` is ``<variant>@<tree>``. Trees a
    variant leaves as they are reuse an earlier variant's replay, so they have no row.

    ``result`` is the compact ``ReplayResult``: per workload its first admission,
    preemptions and lost GPU time.
    """

    run = models.ForeignKey(WhatIfRun, on_delete=models.CASCADE, related_name="replays")
    key = models.CharField(max_length=300)
    status = models.CharField(
        max_length=12, choices=ReplayStatus.choices, default=ReplayStatus.PENDING
    )
    result = models.JSONField(default=dict, blank=True)
    seconds = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    """Stamped by the worker replaying it; empty while it waits in the broker's queue."""

    class Meta:
        ordering = ["run", "key"]
        constraints = [models.UniqueConstraint(fields=["run", "key"], name="one_replay_per_key")]

    def __str__(self) -> str:
        return f"{self.run} {self.key}"


class EtaPrediction(models.Model):
    """A predicted start time, kept so it can be scored once the workload is admitted."""

    uid = models.CharField(max_length=64, db_index=True)
    namespace = models.CharField(max_length=63)
    name = models.CharField(max_length=253)
    predicted_at = models.DateTimeField()
    predicted_start = models.DateTimeField(null=True, blank=True)
    actual_start = models.DateTimeField(null=True, blank=True)
    error_seconds = models.FloatField(null=True, blank=True)

    objects = EtaPredictionQuerySet.as_manager()

    class Meta:
        ordering = ["-predicted_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["uid", "predicted_at"], name="one_prediction_per_time")
        ]

    def __str__(self) -> str:
        return f"ETA of {self.namespace}/{self.name} at {self.predicted_at:%Y-%m-%d %H:%M}"


class PolicySuggestion(models.Model):
    """A draft of one queue's policy proposed from the stored weekly reports (issue 30).

    ``fingerprint`` names the rule, the queue, the flavor, the weeks read and the draft,
    so looking again over the same weeks finds the stored row instead of adding one.
    Never applied by the portal: a person applies it through the queue's edit page.
    """

    created_at = models.DateTimeField(auto_now_add=True)
    checked_at = models.DateTimeField()
    kind = models.CharField(max_length=40)
    queue = models.ForeignKey(
        "queues.Queue", on_delete=models.CASCADE, related_name="policy_suggestions"
    )
    flavor = models.CharField(max_length=253)
    title = models.CharField(max_length=300)
    weeks = models.JSONField()
    """The ISO weeks whose reports triggered it, newest first."""
    evidence = models.JSONField()
    proposal = models.JSONField()
    """The queue's proposal as the edit form and the what-if take it."""
    fingerprint = models.CharField(max_length=64, unique=True)
    state = models.CharField(max_length=12, choices=SuggestionState.choices)
    refusal = models.TextField(blank=True)
    """The cluster's answer to the dry run when it refused or could not answer."""
    whatif_run = models.ForeignKey(
        WhatIfRun,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="suggestions",
    )
    dismissed_at = models.DateTimeField(null=True, blank=True)
    dismissed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    dismissed_reason = models.CharField(max_length=500, blank=True)
    """Why a lead or admin dismissed it (optional, one paragraph at most)."""

    objects = PolicySuggestionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"suggestion #{self.pk}: {self.title}"

    @property
    def can_apply(self) -> bool:
        """Offered (the cluster's dry run accepted it) and its what-if has finished."""
        run = self.whatif_run
        return (
            self.state == SuggestionState.OFFERED
            and run is not None
            and run.status == RunStatus.DONE
        )
