"""Every write to notebooks, jobs and the interactive pool. Views, API, admin and tasks call these."""

from apps.jobs.services.common import Principal
from apps.jobs.services.jobs import JobRequest, cancel_job, submit_job
from apps.jobs.services.notebooks import (
    NotebookRequest,
    RequestOutcome,
    adopt_notebook,
    renew_notebook,
    request_notebook,
    stop_notebook,
)
from apps.jobs.services.upkeep import cull_idle_notebooks, expire_notebooks

__all__ = [
    "JobRequest",
    "NotebookRequest",
    "Principal",
    "RequestOutcome",
    "adopt_notebook",
    "cancel_job",
    "cull_idle_notebooks",
    "expire_notebooks",
    "renew_notebook",
    "request_notebook",
    "stop_notebook",
    "submit_job",
]
