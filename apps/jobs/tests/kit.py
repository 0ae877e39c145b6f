"""Helpers the job tests share."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from apps.jobs import cluster_sync
from apps.jobs.choices import JobState
from apps.jobs.models import BatchJob
from apps.jobs.services import JobRequest, Principal, submit_job
from core.kube import KubeClient


def submit_training(user, name: str, *, tier: str, seconds: int = 3600) -> BatchJob:
    """Submit one 8-GPU h100 training job as ``user`` and create it on the cluster."""
    request = JobRequest(
        template="pytorch-train",
        flavor="h100",
        gpus_per_pod=8,
        priority_tier=tier,
        display_name=name,
        sim_duration_seconds=seconds,
    )
    job, _ = submit_job(user, request, actor=Principal(user))
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "created"
    return job


def record_runs(user, minutes: list[int], **request) -> None:
    """Jobs of ``user``'s team and pytorch-train that succeeded a day ago, one per run time."""
    ended = datetime.now(UTC) - timedelta(days=1)
    spec = {"template": "pytorch-train", "flavor": "h100", "gpus_per_pod": 8, **request}
    for run in minutes:
        job, _ = submit_job(user, JobRequest(**spec), actor=Principal(user))
        # What the status pass records for a job that ran ``run`` minutes to success.
        BatchJob.objects.filter(pk=job.pk).update(
            state=JobState.SUCCEEDED, admitted_at=ended - timedelta(minutes=run), ended_at=ended
        )


def recording_since(user, days: int) -> None:
    """A job of ``user``'s team submitted, run and ended ``days`` ago: the portal's first
    job, so it has recorded submissions for that long (outside every recent window)."""
    then = datetime.now(UTC) - timedelta(days=days)
    spec = JobRequest(template="pytorch-train", flavor="h100", gpus_per_pod=8)
    job, _ = submit_job(user, spec, actor=Principal(user))
    BatchJob.objects.filter(pk=job.pk).update(
        state=JobState.SUCCEEDED, created_at=then, admitted_at=then, ended_at=then
    )
