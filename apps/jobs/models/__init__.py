"""Models of notebooks and batch jobs, one module per concern."""

from apps.jobs.models.base import SubmittedWorkload
from apps.jobs.models.batch import BatchJob, JobEvent, JobTemplate, RoleTierLimit
from apps.jobs.models.inference import InferenceService
from apps.jobs.models.launchers import LauncherGrant
from apps.jobs.models.notebooks import Notebook
from apps.jobs.models.pool import InteractivePool, NotebookImage, NotebookProfile, PoolFlavor
from apps.jobs.models.sweeps import Sweep, SweepLimit

__all__ = [
    "BatchJob",
    "InferenceService",
    "InteractivePool",
    "JobEvent",
    "JobTemplate",
    "LauncherGrant",
    "Notebook",
    "NotebookImage",
    "NotebookProfile",
    "PoolFlavor",
    "RoleTierLimit",
    "SubmittedWorkload",
    "Sweep",
    "SweepLimit",
]
