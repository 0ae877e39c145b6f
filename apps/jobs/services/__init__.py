"""Every write to notebooks, jobs and the interactive pool. Views, API, admin and tasks call these."""

from apps.jobs.services.common import Principal
from apps.jobs.services.idempotency import Submission
from apps.jobs.services.jobs import JobRequest, cancel_job, submit_job
from apps.jobs.services.launchers import issue_launcher_token, set_launcher_teams
from apps.jobs.services.notebooks import (
    NotebookRequest,
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
    "Submission",
    "adopt_notebook",
    "cancel_job",
    "cull_idle_notebooks",
    "expire_notebooks",
    "issue_launcher_token",
    "renew_notebook",
    "request_notebook",
    "set_launcher_teams",
    "stop_notebook",
    "submit_job",
]
