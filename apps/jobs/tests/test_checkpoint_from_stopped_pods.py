"""A preemption is recorded when the Workload is evicted, before the stopped pods have
left their termination messages; the checkpoint they then report narrows its loss."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from apps.jobs import status
from apps.jobs.choices import JobEventKind
from apps.jobs.models import BatchJob
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.jobs.services.jobs import JobStatus, apply_job_status, mark_job_created

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def _history() -> tuple:
    return (
        status.HistoryEntry("admitted:7", JobEventKind.ADMITTED, at(7), "Admitted"),
        status.HistoryEntry("preempted:30", JobEventKind.PREEMPTED, at(30), "InCohortReclamation"),
    )


def _stopped_pod(message: str) -> dict:
    terminated = {"exitCode": 143, "message": message}
    return {
        "status": {"containerStatuses": [{"name": "trainer", "state": {"terminated": terminated}}]}
    }


def test_the_checkpoint_in_the_termination_message_narrows_the_recorded_loss(
    scientist, queue, template
):
    job, _ = submit_job(
        scientist,
        JobRequest(
            template="pytorch-train", flavor="h100", gpus_per_pod=2, checkpoint_dir="runs/a"
        ),
        actor=Principal(scientist),
    )
    BatchJob.objects.filter(pk=job.pk).update(created_at=T0)
    assert mark_job_created(job.pk)
    workload = {"metadata": {"annotations": {}}}
    now = at(60)

    job = BatchJob.objects.with_related().get(pk=job.pk)
    seen_at_eviction = status.last_checkpoint(workload, [])  # pods still stopping
    assert apply_job_status(
        job, JobStatus("queued", history=_history(), last_checkpoint=seen_at_eviction), now=now
    )
    preempted = job.events.get(kind=JobEventKind.PREEMPTED)
    # Admitted at 7, preempted at 30, no checkpoint known: 23 min × 2 GPUs = 46 GPU-minutes.
    assert (preempted.lost_since, preempted.lost_gpu_minutes) == ("admission", 46)
    assert BatchJob.objects.get(pk=job.pk).lost_work_seconds == 23 * 60

    pod = _stopped_pod("quartermaster.io/last-checkpoint=2026-03-02T09:20:00Z")
    job = BatchJob.objects.with_related().get(pk=job.pk)
    reported = status.last_checkpoint(workload, [pod])
    assert apply_job_status(
        job, JobStatus("queued", history=_history(), last_checkpoint=reported), now=now
    )
    preempted.refresh_from_db()
    # Checkpoint at 20, preempted at 30: 10 min × 2 GPUs = 20 GPU-minutes.
    assert (preempted.lost_since, preempted.lost_gpu_minutes) == ("checkpoint", 20)
    assert BatchJob.objects.get(pk=job.pk).lost_work_seconds == 10 * 60
