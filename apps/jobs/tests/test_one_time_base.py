"""A record's times are on one clock: a cluster whose clock is behind ours (the simulated
cluster's past) never makes a notebook ready before it was created."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.utils import timezone

from apps.jobs import cluster_sync
from apps.jobs.choices import JobEventKind, JobState, NotebookState
from apps.jobs.models import BatchJob, Notebook
from apps.jobs.services import (
    JobRequest,
    NotebookRequest,
    Principal,
    request_notebook,
    submit_job,
)
from apps.jobs.services.jobs import JobStatus, apply_job_status
from apps.jobs.status import HistoryEntry, ready_since
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from informer.kinds import POD
from testkit.notebooks import IMAGE
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

AHEAD = timedelta(hours=2)  # our clock ahead of the cluster's: its times are in our past


def test_a_pod_ready_in_the_clusters_past_is_stored_ready_at_creation(sim, pool, queue, scientist):
    reconcile(trigger="manual")
    created = timezone.now().replace(microsecond=0) + AHEAD
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)
    notebook = request_notebook(scientist, spec, actor=Principal(scientist), now=created).record
    with KubeClient() as client:
        assert cluster_sync.provision_notebook(client, notebook.pk) == "created"

    def ready():
        with KubeClient() as client:
            cluster_sync.sync_status(client, now=timezone.now() + AHEAD + timedelta(minutes=1))
        return Notebook.objects.filter(pk=notebook.pk, state=NotebookState.READY).first()

    stored = wait_until(ready, timeout=60, interval=0.2)
    with sim.client() as kube:
        pods = [p for p in kube.list(POD) if p["metadata"]["name"].startswith(notebook.name)]
    # The cluster says the pod became ready about two hours before the row was created.
    assert ready_since(pods) < created - timedelta(hours=1)
    # So the stored pair is clamped: ready at the creation, not before it.
    assert stored.created_at == created and stored.ready_at == created
    assert not Notebook.objects.times_out_of_order().exists()


def test_the_check_names_rows_whose_times_are_out_of_order(pool, scientist):
    now = timezone.now()
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)
    notebook = request_notebook(scientist, spec, actor=Principal(scientist), now=now).record
    call_command("check", "--database", "default")  # in order: no warning
    # By hand, as an unclamped cluster time would have it: ready three days before created.
    Notebook.objects.filter(pk=notebook.pk).update(ready_at=now - timedelta(days=3))
    assert list(Notebook.objects.times_out_of_order()) == [notebook]
    assert not BatchJob.objects.times_out_of_order().exists()
    with pytest.raises(SystemCheckError, match=r"1 notebooks have times out of order"):
        call_command("check", "--database", "default", "--fail-level", "WARNING")


def test_a_job_event_from_a_cluster_clock_ahead_of_ours_is_stored_at_the_read(
    scientist, queue, template
):
    submitted = timezone.now().replace(microsecond=0)
    read = submitted + timedelta(minutes=5)
    spec = JobRequest(template="pytorch-train", flavor="h100", gpus_per_pod=1)
    job, _ = submit_job(scientist, spec, actor=Principal(scientist), now=submitted)
    # The cluster says admitted a day after our read: its clock runs ahead of ours.
    admitted = HistoryEntry(
        key="admitted:1", kind=JobEventKind.ADMITTED, at=read + timedelta(days=1)
    )
    apply_job_status(job, JobStatus(JobState.RUNNING, history=(admitted,)), now=read)
    stored = {e.kind: e.at for e in job.events.all()}
    assert stored[JobEventKind.SUBMITTED] == submitted
    assert stored[JobEventKind.ADMITTED] == read  # not a day ahead of the read
