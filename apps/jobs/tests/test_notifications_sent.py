"""Owners are told when a notebook is about to expire or be culled, and when a job is preempted."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.jobs.choices import JobEventKind, JobState, NotebookState
from apps.jobs.models import BatchJob, Notebook
from apps.jobs.services import (
    JobRequest,
    NotebookRequest,
    Principal,
    cull_idle_notebooks,
    expire_notebooks,
    renew_notebook,
    request_notebook,
    submit_job,
)
from apps.jobs.services.jobs import JobStatus, apply_job_status
from apps.jobs.status import HistoryEntry
from apps.notifications import services as notifications
from apps.notifications.choices import NotificationKind
from apps.notifications.models import Notification
from testkit.notebooks import IMAGE, delivered

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("scientist_mail")]
T0 = timezone.now().replace(microsecond=0)


def ready(user, *, ttl: int = 1) -> Notebook:
    spec = NotebookRequest(image=IMAGE, flavor="h100", ttl_hours=ttl)
    notebook = request_notebook(user, spec, actor=Principal(user), now=T0).record
    Notebook.objects.filter(pk=notebook.pk).update(state=NotebookState.READY, ready_at=T0)
    return Notebook.objects.get(pk=notebook.pk)


def test_the_expiry_warning_is_sent_once_per_expiry(scientist, pool):
    notebook = ready(scientist)
    expire_notebooks(now=T0 + timedelta(minutes=31))
    expire_notebooks(now=T0 + timedelta(minutes=40))
    (message,) = delivered()
    assert message.to == ["sci@example.org"]
    assert (
        message.subject
        == f"Notebook {notebook.name} stops at {T0 + timedelta(hours=1):%Y-%m-%d %H:%M} UTC"
    )
    assert f"https://portal.example.org/notebooks/{notebook.pk}/" in message.body

    renew_notebook(notebook, actor=Principal(scientist), hours=1, now=T0 + timedelta(minutes=45))
    expire_notebooks(now=T0 + timedelta(minutes=80))
    kinds = Notification.objects.values_list("kind", flat=True)
    assert list(kinds) == [NotificationKind.NOTEBOOK_EXPIRING] * 2


def test_the_idle_warning_says_it_will_be_culled(scientist, pool):
    notebook = ready(scientist, ttl=8)
    peaks = {(notebook.namespace, notebook.pod_name): 2.5}
    cull_idle_notebooks(peaks, now=T0 + timedelta(hours=1))
    cull_idle_notebooks(peaks, now=T0 + timedelta(hours=1, minutes=5))
    (message,) = delivered()
    assert "will be culled soon" in message.body and "peaked at 2.5%" in message.body


def test_a_muted_kind_is_not_sent(scientist, pool):
    notifications.save_preferences(
        scientist,
        actor=scientist,
        email_enabled=True,
        muted_kinds=[NotificationKind.NOTEBOOK_EXPIRING],
    )
    ready(scientist)
    assert expire_notebooks(now=T0 + timedelta(minutes=31))["warned"] == 1
    assert not Notification.objects.exists()


def running_job(user) -> BatchJob:
    spec = JobRequest(template="pytorch-train", flavor="h100", gpus_per_pod=2)
    job, _ = submit_job(user, spec, actor=Principal(user), now=T0)
    BatchJob.objects.filter(pk=job.pk).update(state=JobState.RUNNING)
    return BatchJob.objects.select_related("queue", "owner").get(pk=job.pk)


def preempted(at, checkpoint=None) -> JobStatus:
    entry = HistoryEntry(
        key=f"preempted:{at.isoformat()}",
        kind=JobEventKind.PREEMPTED,
        at=at,
        reason="InCohortReclamation",
        message="Preempted to accommodate a workload (UID: u-1)",
        preemptor="team-nlp/llm-pretrain",
    )
    return JobStatus(JobState.QUEUED, history=(entry,), last_checkpoint=checkpoint)


def admitted_at(job, at) -> None:
    entry = HistoryEntry(key="admitted:1", kind=JobEventKind.ADMITTED, at=at)
    assert apply_job_status(job, JobStatus(JobState.RUNNING, history=(entry,)), now=at)
    job.refresh_from_db()


def test_the_owner_learns_who_preempted_their_job_and_what_was_lost(scientist, queue, template):
    job = running_job(scientist)
    admitted_at(job, T0)
    # Admitted at T0, last checkpoint at T0 + 10 min, preempted at T0 + 50 min: 40 min lost.
    at, checkpoint = T0 + timedelta(minutes=50), T0 + timedelta(minutes=10)
    assert apply_job_status(job, preempted(at, checkpoint), now=at)
    job.refresh_from_db()
    apply_job_status(job, preempted(at, checkpoint), now=at + timedelta(seconds=30))
    job.refresh_from_db()
    assert job.lost_work_seconds == 40 * 60  # counted once, not again by the next sync
    event = job.events.get(kind=JobEventKind.PREEMPTED)
    assert event.lost_gpu_minutes == 40 * job.total_gpus and event.lost_since == "checkpoint"
    (message,) = delivered()
    assert message.subject == f"Job {job.name} was preempted"
    assert "preempted by team-nlp/llm-pretrain (InCohortReclamation)" in message.body
    assert "lost about 40 min of work since its last checkpoint." in message.body
    assert f"/jobs/{job.pk}/" in message.body


def test_history_stamped_to_the_second_never_comes_before_the_submission(
    scientist, queue, template
):
    spec = JobRequest(template="pytorch-train", flavor="h100", gpus_per_pod=2)
    submitted = T0 + timedelta(milliseconds=600)
    job, _ = submit_job(scientist, spec, actor=Principal(scientist), now=submitted)
    admitted = HistoryEntry(
        key="admitted:1", kind=JobEventKind.ADMITTED, at=T0, reason="QuotaReserved", message=""
    )
    apply_job_status(job, JobStatus(JobState.ADMITTED, history=(admitted,)), now=submitted)
    kinds = [(e.kind, e.at) for e in job.events.all()]
    assert kinds == [(JobEventKind.SUBMITTED, submitted), (JobEventKind.ADMITTED, submitted)]


def test_a_loss_without_a_checkpoint_is_counted_from_admission_and_says_so(
    client, scientist, queue, template
):
    job = running_job(scientist)
    admitted_at(job, T0)
    at = T0 + timedelta(minutes=30)  # no checkpoint reported: all 30 minutes are lost
    assert apply_job_status(job, preempted(at), now=at)
    event = job.events.get(kind=JobEventKind.PREEMPTED)
    assert event.lost_gpu_minutes == 30 * job.total_gpus and event.lost_since == "admission"
    (message,) = delivered()
    assert "lost about 30 min of work since it was admitted (it reported no checkpoint)" in (
        message.body
    )
    client.force_login(scientist)
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "since admission (assumed: no checkpoint reported)" in page
