"""Issue 29, end to end through the portal on the simulated cluster (virtual clock): a
preempted job restarts from the file it wrote into its team's checkpoint volume.

Three 8-GPU p3-low jobs (4 h of work, a checkpoint every 30 min) fill the queue's 24
GPUs from 00:00 (the virtual clock's start) on three nodes; at 01:10 a p1-high job preempts one of them. By hand:
its last checkpoint is 01:00 (M), so it lost 01:10 − 01:00 = 10 min × 8 GPUs = 80
GPU-minutes "since the last checkpoint", and once re-admitted (after the urgent job's
hour) it runs 4 h − 1 h (saved up to M) = 3 h more, not 4.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.jobs import cluster_sync
from apps.jobs.choices import JobEventKind, JobState
from apps.jobs.models import BatchJob, JobEvent
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.queues import kueue
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from informer.objects import parse_time
from testkit.factories import set_policy
from testkit.nodes import add_node
from testkit.sim_cluster import SimCluster

pytestmark = pytest.mark.django_db
HOUR = 3600
CONTENTS = "simcluster/volume-contents"


@pytest.fixture
def virtual_sim(tmp_path, settings):
    settings.QM_CLUSTER_SYNC = True
    settings.KUEUE_API_VERSION = "v1beta2"
    settings.QM_KUBE_TIMEOUT_SECONDS = 5.0
    settings.QM_CHECKPOINT_STORAGE_CLASS = "sim-rwx"
    cluster = SimCluster(tmp_path, clock="virtual").start()
    settings.KUBECONFIG = str(cluster.kubeconfig)
    for i in range(3):
        add_node(cluster, f"gpu-{i}")
    yield cluster
    cluster.stop()


def _advance(sim, seconds: float) -> None:
    sim.hook("clock/advance", "POST", {"seconds": seconds})


def _train(user, i: int, tier: str, hours: int) -> BatchJob:
    request = JobRequest(
        template="pytorch-train",
        flavor="h100",
        gpus_per_pod=8,
        priority_tier=tier,
        sim_duration_seconds=hours * HOUR,
        checkpoint_dir=f"runs/{i}",
        checkpoint_interval_minutes=30,
    )
    job, _ = submit_job(user, request, actor=Principal(user))
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "created"
    return job


def _sync() -> None:
    with KubeClient() as client:
        cluster_sync.sync_status(client, now=timezone.now())


def _state(job: BatchJob) -> str:
    return BatchJob.objects.get(pk=job.pk).state


def test_a_preempted_job_restarts_from_its_checkpoint_file(
    virtual_sim, pool, queue, scientist, lead, template, admin
):
    set_policy(queue, admin, preemption={"within_cluster_queue": "LowerPriority"})
    assert reconcile(trigger="manual").errors == []
    assert virtual_sim.get(kueue.PERSISTENT_VOLUME_CLAIM, kueue.CHECKPOINT_CLAIM, "team-vision")

    start = parse_time(virtual_sim.hook("clock")["now"])  # 00:00: time stands until advanced
    low = [_train(scientist, i, "p3-low", hours=4) for i in range(3)]
    _advance(virtual_sim, 1)
    _sync()
    assert [_state(j) for j in low] == [JobState.RUNNING] * 3
    _advance(virtual_sim, HOUR + 600 - 1)  # 01:10
    _train(lead, 9, "p1-high", hours=1)
    _advance(virtual_sim, 2)  # the victim's pods stop, the urgent job is admitted
    _sync()

    (event,) = JobEvent.objects.filter(job__in=low, kind=JobEventKind.PREEMPTED)
    victim = event.job
    assert (event.lost_since, event.lost_gpu_minutes) == ("checkpoint", 80)  # 10 min × 8
    claim = virtual_sim.get(kueue.PERSISTENT_VOLUME_CLAIM, kueue.CHECKPOINT_CLAIM, "team-vision")
    files = json.loads(claim["metadata"]["annotations"][CONTENTS])
    m = start + timedelta(hours=1)  # the second 30-min checkpoint: 00:00 + 1 h
    assert files[victim.checkpoint_dir] == {"checkpoint": m.strftime("%Y-%m-%dT%H:%M:%SZ")}

    _advance(virtual_sim, HOUR + 2)  # the urgent job's hour; the victim is admitted again
    _sync()
    assert _state(victim) == JobState.RUNNING
    _advance(virtual_sim, 3 * HOUR - 60)
    _sync()
    assert _state(victim) == JobState.RUNNING  # it did not start over from 00:00 ...
    _advance(virtual_sim, 60)
    _sync()
    assert _state(victim) == JobState.SUCCEEDED  # ... and resumed from 01:00: 3 h, not 4
