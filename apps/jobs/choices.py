"""Enumerations of notebooks and batch jobs, with the named groups the services use."""

from django.db import models


class NotebookState(models.TextChoices):
    REQUESTED = "requested", "Requested"  # row saved, cluster objects not created yet
    QUEUED = "queued", "Queued"
    STARTING = "starting", "Starting"
    READY = "ready", "Ready"
    EXPIRING = "expiring", "Expiring"  # ready, but the TTL runs out soon: renew or lose it
    STOPPED = "stopped", "Stopped"
    CULLED = "culled", "Culled"
    FAILED = "failed", "Failed"

    @classmethod
    def active_values(cls) -> tuple[str, ...]:
        """States that hold a slot in the per-user limits and the pool."""
        return (cls.REQUESTED, cls.QUEUED, cls.STARTING, cls.READY, cls.EXPIRING)

    @classmethod
    def running_values(cls) -> tuple[str, ...]:
        """States with a pod that may be using its GPUs (culling candidates)."""
        return (cls.READY, cls.EXPIRING)

    @classmethod
    def followed_values(cls) -> tuple[str, ...]:
        """States read back from the cluster (its objects exist and it has not ended)."""
        return (cls.QUEUED, cls.STARTING, *cls.running_values())

    @classmethod
    def terminal_values(cls) -> tuple[str, ...]:
        return (cls.STOPPED, cls.CULLED, cls.FAILED)


class JobState(models.TextChoices):
    SUBMITTED = "submitted", "Submitted"  # row saved, Job not created yet
    QUEUED = "queued", "Queued"
    ADMITTED = "admitted", "Admitted, starting"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"

    @classmethod
    def active_values(cls) -> tuple[str, ...]:
        return (cls.SUBMITTED, cls.QUEUED, cls.ADMITTED, cls.RUNNING)

    @classmethod
    def followed_values(cls) -> tuple[str, ...]:
        """States read back from the cluster (its Job exists and it has not ended)."""
        return (cls.QUEUED, cls.ADMITTED, cls.RUNNING)

    @classmethod
    def terminal_values(cls) -> tuple[str, ...]:
        return (cls.SUCCEEDED, cls.FAILED, cls.CANCELLED)


class InferenceState(models.TextChoices):
    REQUESTED = "requested", "Requested"  # row saved, StatefulSet not created yet
    QUEUED = "queued", "Queued"  # waiting for Kueue to admit every replica at once
    STARTING = "starting", "Starting"  # admitted, not every replica ready yet
    SERVING = "serving", "Serving"  # every replica ready
    STOPPED = "stopped", "Stopped"
    FAILED = "failed", "Failed"

    @classmethod
    def active_values(cls) -> tuple[str, ...]:
        return (cls.REQUESTED, cls.QUEUED, cls.STARTING, cls.SERVING)

    @classmethod
    def followed_values(cls) -> tuple[str, ...]:
        """States read back from the cluster (its objects exist and it has not ended)."""
        return (cls.QUEUED, cls.STARTING, cls.SERVING)

    @classmethod
    def terminal_values(cls) -> tuple[str, ...]:
        return (cls.STOPPED, cls.FAILED)


class SweepState(models.TextChoices):
    OPEN = "open", "Open"  # trials left to release or still running
    DONE = "done", "Done"  # every trial released and ended
    CANCELLED = "cancelled", "Cancelled"  # the rest cancelled: nothing more is released
    FAILED = "failed", "Failed"  # a trial could no longer be submitted (see state_reason)


class JobEventKind(models.TextChoices):
    SUBMITTED = "submitted", "Submitted"
    ADMITTED = "admitted", "Admitted"
    PREEMPTED = "preempted", "Preempted"
    EVICTED = "evicted", "Evicted"
    REQUEUED = "requeued", "Requeued"
    FINISHED = "finished", "Finished"
    CANCELLED = "cancelled", "Cancelled"


class LimitedRole(models.TextChoices):
    """Roles whose highest batch priority tier an admin sets (admins may use any)."""

    SCIENTIST = "scientist", "Scientist"
    LEAD = "lead", "Team lead"


class TopologyMode(models.TextChoices):
    """How a job's pods ask for one topology domain (Kueue's pod-set annotations)."""

    REQUIRED = "required", "Required (waits until one domain has room)"
    PREFERRED = "preferred", "Preferred (spreads over several if none has room)"
