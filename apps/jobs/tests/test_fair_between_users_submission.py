"""On a queue fair between users, a user's jobs and sweep trials go to their own LocalQueue,
and the live Kueue of the simulated cluster admits them from there.

Names by hand (``<queue>.<user>-<first 8 hex of sha256("vision\\0<user>")>``):
scientist → ``vision.scientist-03970707``, lead → ``vision.lead-d2d2d3cf``.
"""

import pytest
from django.utils import timezone

from apps.jobs import cluster, cluster_sync
from apps.jobs.choices import JobState
from apps.jobs.models import BatchJob
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.jobs.services.sweeps import SweepRequest, submit_sweep
from apps.jobs.tests.kit import submit_training
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from testkit.factories import set_policy
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def _queue_label(sim, job: BatchJob) -> str:
    """The LocalQueue named by ``job``'s Job on the cluster."""
    with KubeClient() as kube:
        (found,) = [
            j
            for j in cluster.observe(kube).jobs
            if (j["metadata"]["namespace"], j["metadata"]["name"]) == (job.namespace, job.name)
        ]
    return found["metadata"]["labels"][QUEUE_LABEL]


def _running(job: BatchJob):
    with KubeClient() as kube:
        cluster_sync.sync_status(kube, now=timezone.now())
    job.refresh_from_db()
    return job.state == JobState.RUNNING or None


def test_each_users_job_goes_to_their_own_local_queue_and_is_admitted(
    sim, queue, admin, lead, scientist, template
):
    set_policy(queue, admin, fair_between_users=True)
    reconcile(trigger="manual")
    mine = submit_training(scientist, "mine", tier="p2-standard")
    theirs = submit_training(lead, "theirs", tier="p2-standard")
    assert _queue_label(sim, mine) == "vision.scientist-03970707"
    assert _queue_label(sim, theirs) == "vision.lead-d2d2d3cf"
    # 8 + 8 GPUs within vision's 16 h100: both admitted through their own LocalQueues.
    wait_until(lambda: _running(mine), timeout=60, interval=0.3)
    wait_until(lambda: _running(theirs), timeout=60, interval=0.3)


def test_a_queue_not_fair_between_users_keeps_the_team_local_queue(sim, queue, scientist, template):
    reconcile(trigger="manual")
    job = submit_training(scientist, "plain", tier="p2-standard")
    assert _queue_label(sim, job) == "vision"


def test_a_sweep_trial_goes_to_its_owners_local_queue(sim, queue, admin, scientist, template):
    set_policy(queue, admin, fair_between_users=True)
    reconcile(trigger="manual")
    request = SweepRequest(
        job=JobRequest(template="pytorch-train", flavor="h100", gpus_per_pod=1),
        grid={"seed": [1]},
        concurrency_limit=1,
    )
    sweep = submit_sweep(scientist, request, actor=Principal(scientist)).record
    (trial,) = BatchJob.objects.filter(sweep=sweep)
    with KubeClient() as client:
        assert cluster_sync.create_job(client, trial.pk) == "created"
    assert _queue_label(sim, trial) == "vision.scientist-03970707"


def test_a_job_keeps_the_local_queue_it_was_created_with(sim, queue, admin, scientist, template):
    # Created before the queue turned fair: its Job already names the team's LocalQueue,
    # which stays, so it is still admitted from there.
    reconcile(trigger="manual")
    job, _ = submit_job(
        scientist,
        JobRequest(template="pytorch-train", flavor="h100", gpus_per_pod=1),
        actor=Principal(scientist),
    )
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "created"
    set_policy(queue, admin, fair_between_users=True)
    reconcile(trigger="manual")
    assert _queue_label(sim, job) == "vision"
    wait_until(lambda: _running(job), timeout=60, interval=0.3)
