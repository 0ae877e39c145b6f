"""The reserved interactive pool: admin policy for notebooks, rendered as its own ClusterQueue."""

from django.db import models
from django.db.models import Q

from apps.queues.models import Cohort, PriorityTier, ResourceFlavor


class PoolQuerySet(models.QuerySet):
    def current(self):
        """The enabled pool, or None (at most one is enabled, see the constraint)."""
        return self.filter(is_enabled=True).first()


class InteractivePool(models.Model):
    """GPUs reserved for notebooks, with the per-user limits and lifetimes that apply.

    Rendered as a ClusterQueue named ``name`` plus a LocalQueue of that name in every
    team namespace. With ``lend_idle_capacity`` the ClusterQueue joins ``cohort`` and
    lends idle GPUs to batch queues there; it reclaims them by preemption
    (``reclaimWithinCohort: Any``) and never borrows. Without it the pool stays out of
    every cohort: strictly reserved.
    """

    name = models.CharField(max_length=63, unique=True, default="interactive")
    is_enabled = models.BooleanField(default=True)
    priority_tier = models.ForeignKey(PriorityTier, on_delete=models.PROTECT, related_name="+")
    cohort = models.ForeignKey(
        Cohort, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    lend_idle_capacity = models.BooleanField(default=False)
    max_gpus_per_user = models.PositiveIntegerField(default=2)
    max_notebooks_per_user = models.PositiveIntegerField(default=2)
    default_ttl_hours = models.PositiveIntegerField(default=8)
    max_ttl_hours = models.PositiveIntegerField(default=24)
    expiry_warning_minutes = models.PositiveIntegerField(default=30)
    idle_threshold_percent = models.FloatField(default=5.0)
    idle_window_minutes = models.PositiveIntegerField(default=60)
    idle_grace_minutes = models.PositiveIntegerField(
        default=15,
        help_text="How long a notebook stays idle after the warning before it is culled.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    objects = PoolQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["is_enabled"], condition=Q(is_enabled=True), name="one_enabled_pool"
            )
        ]

    def __str__(self) -> str:
        return self.name


class PoolFlavor(models.Model):
    """GPUs (and the CPU/memory that go with them) of one flavor reserved in the pool."""

    pool = models.ForeignKey(InteractivePool, on_delete=models.CASCADE, related_name="flavors")
    flavor = models.ForeignKey(ResourceFlavor, on_delete=models.PROTECT, related_name="+")
    gpu_resource = models.CharField(max_length=253, default="nvidia.com/gpu")
    gpus = models.PositiveIntegerField()
    cpu = models.CharField(max_length=64, help_text="CPU quota of the pool on this flavor.")
    memory = models.CharField(max_length=64, help_text="Memory quota of the pool on this flavor.")
    rank = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["rank", "flavor__name"]
        constraints = [models.UniqueConstraint(fields=["pool", "flavor"], name="one_pool_flavor")]

    def __str__(self) -> str:
        return f"{self.pool}:{self.flavor} × {self.gpus}"


class NotebookImage(models.Model):
    """An image on the admin allow-list."""

    image = models.CharField(max_length=500, unique=True)
    description = models.CharField(max_length=200, blank=True)
    is_enabled = models.BooleanField(default=True)

    class Meta:
        ordering = ["image"]

    def __str__(self) -> str:
        return self.image


class NotebookProfile(models.Model):
    """CPU and memory of a notebook pod (requests = limits)."""

    name = models.SlugField(max_length=63, unique=True)
    cpu = models.CharField(max_length=64)
    memory = models.CharField(max_length=64)
    description = models.CharField(max_length=200, blank=True)
    is_default = models.BooleanField(default=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.cpu} CPU, {self.memory})"
