"""Sweeps: one job template run as N trials, and how many trials one user may hold at once."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from apps.jobs.choices import JobState, SweepState
from apps.jobs.models.base import IdempotentRequest
from apps.jobs.models.batch import BatchJob
from apps.jobs.querysets import SweepQuerySet
from apps.jobs.trials import Progress, progress
from apps.queues.models import Team

# A team with no SweepLimit row gets these (docs/sweeps.md).
DEFAULT_PER_USER = 2
DEFAULT_MAX_PER_USER = 8


class SweepLimit(models.Model):
    """Trials of sweeps one member of ``team`` may hold at once (created, queued or running).

    ``max_per_user`` is the envelope an admin sets; ``per_user`` is the lead's choice
    within it, and the default limit of every sweep a member submits.
    """

    team = models.OneToOneField(Team, on_delete=models.CASCADE, related_name="sweep_limit")
    per_user = models.PositiveIntegerField(default=DEFAULT_PER_USER)
    max_per_user = models.PositiveIntegerField(default=DEFAULT_MAX_PER_USER)

    def __str__(self) -> str:
        return f"sweeps of {self.team}: {self.per_user} per user (≤ {self.max_per_user})"


class Sweep(IdempotentRequest):
    """A job template submitted as ``len(trials)`` batch jobs, released ``concurrency_limit`` at a time.

    ``job_spec`` holds the submission fields every trial shares (a ``JobRequest`` as a
    dict, its ``command`` the base command); ``trials`` the expanded parameters, one dict
    per trial, appended to the base command as ``--name=value``. A trial is a
    ``BatchJob`` with this sweep and its index; trials not released yet have no row.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="sweeps"
    )
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="sweeps")
    template = models.ForeignKey("jobs.JobTemplate", on_delete=models.PROTECT, related_name="+")
    display_name = models.CharField(max_length=100, blank=True)
    job_spec = models.JSONField()
    trials = models.JSONField()
    concurrency_limit = models.PositiveIntegerField()
    # Failed trials the user asked to run again, not released yet (indices, oldest first):
    # they go before trials never released, within the same limits.
    retry_queue = models.JSONField(default=list, blank=True)
    state = models.CharField(max_length=20, choices=SweepState.choices, default=SweepState.OPEN)
    state_reason = models.TextField(blank=True)
    created_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    objects = SweepQuerySet.as_manager()

    class Meta(IdempotentRequest.Meta):
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["owner", "team", "state"])]

    def __str__(self) -> str:
        return self.display_name or f"sweep {self.pk}"

    @property
    def trial_count(self) -> int:
        return len(self.trials)

    def latest_runs(self) -> dict[int, BatchJob]:
        """Each released trial's latest run, by trial index (reads ``jobs``, prefetch it)."""
        latest: dict[int, BatchJob] = {}
        for job in self.jobs.all():
            if job.trial_index not in latest or job.attempt > latest[job.trial_index].attempt:
                latest[job.trial_index] = job
        return latest

    def progress(self) -> Progress:
        """Trials done / running / waiting / failed / cancelled, each by its latest run; a
        trial queued to run again waits."""
        retrying = set(self.retry_queue)
        return progress(
            [
                JobState.SUBMITTED if index in retrying else job.state
                for index, job in self.latest_runs().items()
            ],
            trials=self.trial_count,
            cancelled_sweep=self.state == SweepState.CANCELLED,
        )

    def trial_rows(self) -> list[dict]:
        """Each trial: its number, parameters, its latest run once released, how many
        runs it had, and whether it waits to run again."""
        latest, retrying = self.latest_runs(), set(self.retry_queue)
        return [
            {
                "number": i + 1,
                "parameters": params,
                "job": latest.get(i),
                "runs": latest[i].attempt if i in latest else 0,
                "retrying": i in retrying,
            }
            for i, params in enumerate(self.trials)
        ]
