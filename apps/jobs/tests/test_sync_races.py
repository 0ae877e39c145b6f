"""The level-based status pass racing with job submission never fails a new job."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.utils import timezone

from apps.jobs import cluster_sync
from apps.jobs.choices import JobState
from apps.jobs.models import BatchJob
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def test_jobs_created_during_a_full_pass_are_not_taken_for_deleted(
    sim, pool, queue, scientist, template
):
    reconcile(trigger="manual")
    submitting = threading.Event()
    passes = {"n": 0}

    def keep_syncing():
        try:
            with KubeClient() as client:
                while submitting.is_set() or not passes["n"]:
                    cluster_sync.sync_status(client, now=timezone.now())
                    passes["n"] += 1
        finally:
            connection.close()

    submitting.set()
    syncer = threading.Thread(target=keep_syncing)
    syncer.start()
    try:
        with KubeClient() as client:
            for i in range(12):
                request = JobRequest(
                    template="pytorch-train",
                    flavor="h100",
                    gpus_per_pod=1,
                    display_name=f"race-{i}",
                    sim_duration_seconds=3600,
                )
                job, _ = submit_job(scientist, request, actor=Principal(scientist))
                assert cluster_sync.create_job(client, job.pk) == "created"
    finally:
        submitting.clear()
        syncer.join(timeout=120)
    assert passes["n"] > 1
    states = dict(BatchJob.objects.values_list("display_name", "state"))
    assert JobState.FAILED not in states.values(), states
