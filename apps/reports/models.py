"""Admission history, usage summaries, GPU prices and stored weekly reports.

``WorkloadTransition`` is append-only and keyed by (workload, type, time), so a
replayed watch event or a relist can never write a step twice. ``WorkloadRecord``
is the portal's own copy of each Workload: it outlives the Kubernetes object.
Every write goes through ``apps.reports.services``.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.queues.models import ResourceFlavor, Team
from apps.reports.choices import GapCause, Outcome, SizeClass
from apps.reports.querysets import ReportQuerySet, TeamScopedQuerySet
from informer.workload import Transition


class WorkloadRecord(models.Model):
    """One Kueue Workload as the portal remembers it, kept after the Workload is deleted."""

    uid = models.CharField(max_length=64, unique=True)
    namespace = models.CharField(max_length=63)
    name = models.CharField(max_length=253)
    owner_kind = models.CharField(max_length=63, blank=True)
    owner_name = models.CharField(max_length=253, blank=True)
    team = models.ForeignKey(
        Team, null=True, blank=True, on_delete=models.SET_NULL, related_name="workload_records"
    )
    team_slug = models.CharField(max_length=63, blank=True)
    local_queue = models.CharField(max_length=253, blank=True)
    cluster_queue = models.CharField(max_length=253, blank=True)
    priority = models.IntegerField(default=0)
    priority_class = models.CharField(max_length=253, blank=True)
    pod_count = models.PositiveIntegerField(default=1)
    gpus = models.PositiveIntegerField(default=0)
    gpus_by_flavor = models.JSONField(default=dict, blank=True)
    # The pods' own nodeSelector ({}: none): which flavors the workload could have
    # used, not just the one it got. Null: not known (recorded before this field,
    # or the pods require node affinity).
    node_selector = models.JSONField(null=True, blank=True)
    size_class = models.CharField(max_length=12, choices=SizeClass.choices, default=SizeClass.NONE)
    created_at = models.DateTimeField(db_index=True)
    first_admitted_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)
    outcome = models.CharField(max_length=12, choices=Outcome.choices, default=Outcome.PENDING)
    last_checkpoint_at = models.DateTimeField(null=True, blank=True)

    objects = TeamScopedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "uid"]

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


class WorkloadTransition(models.Model):
    """One recorded step of a workload. Append-only.

    ``rebuilt``: learned after a history gap from Kueue's Events or from the
    conditions a relist showed, rather than seen live by the watch.
    """

    workload = models.ForeignKey(
        WorkloadRecord, on_delete=models.PROTECT, related_name="transitions"
    )
    type = models.CharField(max_length=16, choices=Transition.choices)
    at = models.DateTimeField(db_index=True)
    reason = models.CharField(max_length=100, blank=True)
    message = models.CharField(max_length=1000, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    rebuilt = models.BooleanField(default=False)

    class Meta:
        ordering = ["at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["workload", "type", "at"], name="one_transition_per_time"
            )
        ]

    def __str__(self) -> str:
        return f"{self.workload_id} {self.type} at {self.at:%Y-%m-%d %H:%M:%S}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise PermissionError("workload transitions are append-only")
        super().save(*args, **kwargs)


class WorkloadUsage(models.Model):
    """What DCGM said about one workload in one ISO week (so reports outlive retention)."""

    workload = models.ForeignKey(WorkloadRecord, on_delete=models.CASCADE, related_name="usage")
    week = models.CharField(max_length=8)
    gpu_util = models.FloatField(null=True, blank=True, help_text="mean busy ratio, 0–1")
    memory_used_mib = models.FloatField(null=True, blank=True)
    power_watts = models.FloatField(null=True, blank=True)
    energy_kwh = models.FloatField(null=True, blank=True)
    source = models.CharField(max_length=40, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workload", "week"], name="one_usage_per_week")
        ]

    def __str__(self) -> str:
        return f"usage of {self.workload_id} in {self.week}"


class GpuPrice(models.Model):
    """The portal's $/GPU-hour per flavor: used when OpenCost has no price."""

    flavor = models.OneToOneField(ResourceFlavor, on_delete=models.CASCADE, related_name="price")
    usd_per_gpu_hour = models.DecimalField(max_digits=10, decimal_places=4)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["flavor__name"]

    def __str__(self) -> str:
        return f"{self.flavor}: ${self.usd_per_gpu_hour}/GPU-h"


class WeeklyReport(models.Model):
    """A stored snapshot of one ISO week's report; ``totals`` feeds the 52-week trend.

    ``built_at`` is when its build started reading history: the data is as of then.
    """

    week = models.CharField(max_length=8, unique=True)
    built_at = models.DateTimeField(default=timezone.now)
    data = models.JSONField()
    totals = models.JSONField(default=dict)

    objects = ReportQuerySet.as_manager()

    class Meta:
        ordering = ["-week"]

    def __str__(self) -> str:
        return f"report {self.week}"


class HistoryGap(models.Model):
    """An interval in which the recorder did not watch and could not resume.

    From ``start`` (the recorder's last saved progress) to ``end`` (the relist that
    followed) transitions may be missing. ``events_from`` is the oldest Kueue Event
    on a Workload the cluster still had at the relist: when it is not after
    ``start``, the Events cover the whole gap and what happened in it was rebuilt;
    otherwise waits overlapping the gap are unknown, and reports say so.
    """

    start = models.DateTimeField(db_index=True)
    end = models.DateTimeField(db_index=True)
    cause = models.CharField(max_length=20, choices=GapCause.choices)
    events_from = models.DateTimeField(null=True, blank=True)
    rebuilt = models.PositiveIntegerField(default=0, help_text="transitions rebuilt from Events")
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["start", "pk"]

    def __str__(self) -> str:
        return f"history gap {self.start:%Y-%m-%d %H:%M:%S}–{self.end:%H:%M:%S} ({self.cause})"

    @property
    def covered_by_events(self) -> bool:
        return self.events_from is not None and self.events_from <= self.start


class LevelChange(models.Model):
    """The net change, within one minute, of one team's GPUs in use and queue.

    A rollup the recorder keeps as it records transitions (``services.level_rollup``),
    so the usage range views sum a few hundred thousand small rows at most instead of
    replaying millions of transitions. The level at any minute is the sum of every
    change before it. ``minute`` counts minutes since the Unix epoch (UTC): integer
    division gives a step's index in SQL on PostgreSQL and SQLite alike.
    """

    team_slug = models.CharField(max_length=63, blank=True)
    minute = models.IntegerField(db_index=True)
    gpus_in_use = models.IntegerField(default=0)
    pending_workloads = models.IntegerField(default=0)
    pending_gpus = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["team_slug", "minute"], name="one_level_change_per_minute"
            )
        ]

    def __str__(self) -> str:
        return f"{self.team_slug or '(no team)'} at minute {self.minute}"
