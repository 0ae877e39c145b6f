"""Batch jobs submitted from admin templates, their admission history, and tier limits."""

from django.db import models

from apps.jobs.choices import JobEventKind, JobState, LimitedRole, TopologyMode
from apps.jobs.models.base import SubmittedWorkload
from apps.jobs.querysets import BatchJobQuerySet
from apps.queues.models import PriorityTier, Queue


class JobTemplate(models.Model):
    """What users may run: an image, a default command and the CPU/memory per pod."""

    name = models.SlugField(max_length=63, unique=True)
    description = models.CharField(max_length=200, blank=True)
    image = models.CharField(max_length=500)
    default_command = models.JSONField(default=list, blank=True)
    cpu_per_pod = models.CharField(max_length=64, default="8")
    memory_per_pod = models.CharField(max_length=64, default="64Gi")
    max_gpus_per_pod = models.PositiveIntegerField(default=8)
    is_enabled = models.BooleanField(default=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class RoleTierLimit(models.Model):
    """The highest priority tier a role may submit batch jobs at (admins: any)."""

    role = models.CharField(max_length=20, choices=LimitedRole.choices, unique=True)
    max_tier = models.ForeignKey(PriorityTier, on_delete=models.CASCADE, related_name="+")

    def __str__(self) -> str:
        return f"{self.role} ≤ {self.max_tier}"


class BatchJob(SubmittedWorkload):
    """A batch/v1 Job (all-or-nothing over ``pods`` pods) in a team namespace."""

    STATES = JobState
    # The moments of its life in the order they happen (``times_out_of_order``).
    TIME_ORDER = ("created_at", "admitted_at", "ended_at")

    queue = models.ForeignKey(Queue, on_delete=models.PROTECT, related_name="batch_jobs")
    template = models.ForeignKey(JobTemplate, on_delete=models.PROTECT, related_name="jobs")
    command = models.JSONField(default=list)
    gpus_per_pod = models.PositiveIntegerField()
    pods = models.PositiveIntegerField(default=1)
    priority_tier = models.ForeignKey(PriorityTier, on_delete=models.PROTECT, related_name="+")
    max_runtime_seconds = models.PositiveIntegerField()
    checkpoint_dir = models.CharField(max_length=255, blank=True)
    checkpoint_interval_seconds = models.PositiveIntegerField(null=True, blank=True)
    sim_duration_seconds = models.PositiveIntegerField(null=True, blank=True)
    # "Same rack": the name of one of the flavor's topology levels (fixed once set, so
    # the name keeps meaning the same node label), and whether Kueue must or may honour it.
    topology_level = models.CharField(max_length=63, blank=True)
    topology_mode = models.CharField(max_length=20, choices=TopologyMode.choices, blank=True)

    state = models.CharField(max_length=20, choices=JobState.choices, default=JobState.SUBMITTED)
    lost_work_seconds = models.PositiveIntegerField(default=0)
    admitted_at = models.DateTimeField(null=True, blank=True)
    # A sweep's trial: its sweep, its index in the sweep's trials (None otherwise) and
    # which run of that trial it is (a failed trial the user retries runs again as 2, 3…).
    sweep = models.ForeignKey(
        "jobs.Sweep", null=True, blank=True, on_delete=models.PROTECT, related_name="jobs"
    )
    trial_index = models.PositiveIntegerField(null=True, blank=True)
    attempt = models.PositiveSmallIntegerField(default=1)

    objects = BatchJobQuerySet.as_manager()

    class Meta(SubmittedWorkload.Meta):
        constraints = [
            *SubmittedWorkload.Meta.constraints,
            models.UniqueConstraint(fields=["namespace", "name"], name="one_job_name"),
            # Each run of a trial is released once, however many workers release at once.
            models.UniqueConstraint(
                fields=["sweep", "trial_index", "attempt"], name="one_job_per_trial_attempt"
            ),
        ]
        indexes = [models.Index(fields=["team", "state"]), models.Index(fields=["state"])]

    @property
    def total_gpus(self) -> int:
        return self.gpus_per_pod * self.pods

    @property
    def topology_label(self) -> str:
        """The node label key of the level asked for ('' when none)."""
        levels = {lv["name"]: lv["node_label"] for lv in self.flavor.topology_levels or []}
        return levels.get(self.topology_level, "")


class JobEvent(models.Model):
    """One admission-history step (admitted, preempted, requeued, finished…).

    ``key`` identifies the Workload condition transition it came from, so reading
    the same status twice records it once.
    """

    job = models.ForeignKey(BatchJob, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField()
    kind = models.CharField(max_length=20, choices=JobEventKind.choices)
    reason = models.CharField(max_length=100, blank=True)
    message = models.TextField(blank=True)
    preemptor = models.CharField(max_length=300, blank=True)
    lost_gpu_minutes = models.DecimalField(max_digits=12, decimal_places=1, null=True, blank=True)
    # What the loss was counted from: "checkpoint", or "admission" when the job reported
    # no checkpoint within that run (docs/checkpoints.md).
    lost_since = models.CharField(max_length=20, blank=True)
    key = models.CharField(max_length=200)

    class Meta:
        ordering = ["at", "pk"]
        constraints = [models.UniqueConstraint(fields=["job", "key"], name="one_event_per_key")]

    def __str__(self) -> str:
        return f"{self.job} {self.kind} at {self.at:%Y-%m-%d %H:%M}"
