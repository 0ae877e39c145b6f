"""Two workers releasing one user's trials at the same moment never exceed the user's limit."""

import threading

import pytest
from django.db import connection
from django.utils import timezone

from apps.jobs.models import BatchJob
from apps.jobs.services import JobRequest, Principal
from apps.jobs.services.jobs import JobStatus, apply_job_status, mark_job_created
from apps.jobs.services.sweeps import SweepRequest, release_trials, submit_sweep

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

JOB = JobRequest(template="pytorch-train", flavor="h100")


def finish(job: BatchJob) -> None:
    mark_job_created(job.pk)
    job.refresh_from_db()
    assert apply_job_status(job, JobStatus("succeeded"), now=timezone.now())


def test_two_workers_releasing_at_once_stay_within_the_user_limit(queue, template, scientist):
    me = Principal(scientist)
    first = submit_sweep(
        scientist, SweepRequest(job=JOB, grid={"seed": [1, 2, 3, 4]}), actor=me
    ).record
    second = submit_sweep(
        scientist, SweepRequest(job=JOB, grid={"seed": [5, 6, 7, 8]}), actor=me
    ).record
    # The user's limit is 2 (the default): the first sweep holds 2, the second waits.
    assert BatchJob.objects.filter(sweep=first).count() == 2
    assert BatchJob.objects.filter(sweep=second).count() == 0
    for job in BatchJob.objects.filter(sweep=first):
        finish(job)

    # Both sweeps may release now: 0 held of 2. Unlocked, each would count 0 held and
    # release 2, 4 in all; locked, the second to count sees the first's 2.
    start = threading.Barrier(2)
    released: list[int] = []

    def release(sweep_id: int) -> None:
        try:
            start.wait(timeout=10)
            released.append(release_trials(sweep_id))
        finally:
            connection.close()

    threads = [threading.Thread(target=release, args=(s.pk,)) for s in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(released) == [0, 2]
    assert BatchJob.objects.active().filter(sweep__owner=scientist).count() == 2
