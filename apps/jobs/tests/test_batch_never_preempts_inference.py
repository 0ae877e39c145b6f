"""Ground truth on the simulated cluster (and the real Kueue): batch never takes an
inference service's GPUs (docs/inference.md).

One cohort tree, root ``all``:
  production/vision-serving  h100 nominal 4, borrowing 0, lending 0 (a production queue)
  research/nlp               h100 nominal 4, may borrow 4, reclaims from any borrower and
                             preempts lower priorities to borrow (the most aggressive batch)
The inference service takes 2 replicas × 2 GPUs = 4 = all of vision-serving. nlp runs a
4-GPU job at ``interactive`` (1000, the highest batch tier): its own nominal, admitted.
A second such job needs 4 more: nlp's nominal is used, vision-serving lends nothing and
its service (p0-critical, 1000) is not of lower priority, so the job waits and nothing is
evicted: 16 node GPUs, 4 + 4 in use, 8 idle that quota forbids nlp to take.
Were vision-serving allowed to borrow (nominal 2 + 2 borrowed from nlp's idle nominal),
nlp's first job would reclaim those 2 by evicting the service.
"""

import pytest
from django.utils import timezone

from apps.jobs import cluster, cluster_sync, inference_sync
from apps.jobs.choices import InferenceState, JobState
from apps.jobs.models import BatchJob, InferenceService
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.jobs.services.inference import InferenceRequest, request_inference_service
from apps.queues import services as queue_services
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from core.roles import TeamRole
from informer.objects import condition
from testkit.factories import quota, set_policy
from testkit.fixtures.inference import SERVING_IMAGE
from testkit.waiting import wait_until

pytestmark = [pytest.mark.django_db, pytest.mark.both_clusters]


def one_tree(admin, queue, other_queue) -> None:
    queue_services.save_cohort(name="all", actor=admin)
    for child in ("research", "production"):
        queue_services.save_cohort(name=child, parent="all", actor=admin)
    set_policy(queue, admin, cohort=None, quotas=[quota("h100", "4")])  # out of the tree
    set_policy(
        other_queue,
        admin,
        cohort="research",
        quotas=[quota("h100", "4", borrowing_limit="4")],
        preemption={"reclaim_within_cohort": "Any", "borrow_within_cohort": "LowerPriority"},
    )


def sync() -> None:
    with KubeClient() as client:
        cluster_sync.sync_status(client, now=timezone.now())


def create(job: BatchJob) -> None:
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "created"


def evictions_of(service: InferenceService) -> list[dict]:
    """The service's Workload's Evicted/Preempted conditions that are True."""
    with KubeClient() as client:
        workloads = cluster.observe(client).workloads
    mine = [w for w in workloads if w["metadata"].get("name") == service.workload_name]
    return [
        c
        for w in mine
        for kind in ("Evicted", "Preempted")
        if (c := condition(w, kind)) and c.get("status") == "True"
    ]


def test_a_batch_job_at_the_highest_batch_tier_waits_and_the_service_is_never_evicted(
    sim, admin, queue, other_queue, production_queue, scientist, template
):
    one_tree(admin, queue, other_queue)
    queue_services.add_membership(
        team=other_queue.team, user=admin, role=TeamRole.LEAD, actor=admin
    )
    reconcile(trigger="manual")

    service = request_inference_service(
        scientist,
        InferenceRequest(flavor="h100", image=SERVING_IMAGE, replicas=2, gpus_per_replica=2),
        actor=Principal(scientist),
    ).record
    with KubeClient() as client:
        assert inference_sync.create_inference(client, service.pk) == "created"

    def serving():
        sync()
        service.refresh_from_db()
        return service.state == InferenceState.SERVING or None

    wait_until(serving, timeout=120, interval=0.3)
    assert service.ready_replicas == 2

    highest_batch = JobRequest(
        template="pytorch-train",
        flavor="h100",
        gpus_per_pod=4,
        priority_tier="interactive",
        team="nlp",
        sim_duration_seconds=3600,
    )
    first = submit_job(admin, highest_batch, actor=Principal(admin)).record
    create(first)
    second = submit_job(admin, highest_batch, actor=Principal(admin)).record
    create(second)

    def settled():
        # The two are alike: which one Kueue admits first is its choice.
        sync()
        jobs = {j.state: j for j in BatchJob.objects.filter(pk__in=(first.pk, second.pk))}
        waiting = jobs.get(JobState.QUEUED)
        if JobState.RUNNING in jobs and waiting is not None and waiting.workload_name:
            return waiting
        return None

    batch = wait_until(settled, timeout=120, interval=0.3)
    # Kueue has had the nlp job's Workload to consider; a few more passes give a
    # preemption every chance to happen, and each is checked.
    for _ in range(5):
        sync()
        service.refresh_from_db()
        batch.refresh_from_db()
        assert service.state == InferenceState.SERVING
        assert batch.state == JobState.QUEUED
        assert evictions_of(service) == []
    # nlp's own 4 are used and the tree has 0 to lend: vision-serving's lending limit is 0.
    assert "0 free, cohort can lend 0" in batch.pending_reason
    running = BatchJob.objects.filter(pk__in=(first.pk, second.pk), state=JobState.RUNNING)
    assert running.count() == 1
