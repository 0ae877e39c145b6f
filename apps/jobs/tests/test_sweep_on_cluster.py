"""Ground truth on the simulated cluster over HTTP and on the real control plane (the real
Kueue, KWOK pods that end after the trial's run time): a sweep of 6 trials with limit 2
never has more than 2 trials on the cluster, all 6 finish, and a cancel leaves none
running.

The cluster is sampled after every step the portal takes (each creation of a released
trial and each status pass, which is where trials end and the next are released), so no
moment at which the count could rise goes unseen.
"""

import pytest
from django.utils import timezone

from apps.jobs import cluster, cluster_sync
from apps.jobs import status as st
from apps.jobs.choices import JobState, SweepState
from apps.jobs.models import BatchJob, Sweep
from apps.jobs.services import JobRequest, Principal
from apps.jobs.services.sweeps import SweepRequest, cancel_sweep, submit_sweep
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from informer import workload as wl
from testkit.waiting import wait_until

pytestmark = [pytest.mark.django_db, pytest.mark.both_clusters]

HOLDING = (wl.State.QUOTA_RESERVED, wl.State.ADMITTED, wl.State.EVICTED)


def six_trials(user, seconds: int) -> Sweep:
    job = JobRequest(
        template="pytorch-train", flavor="h100", gpus_per_pod=1, sim_duration_seconds=seconds
    )
    request = SweepRequest(job=job, grid={"seed": [1, 2, 3, 4, 5, 6]}, concurrency_limit=2)
    return submit_sweep(user, request, actor=Principal(user)).record


def on_cluster(sweep: Sweep) -> tuple[int, int]:
    """(trial Jobs on the cluster not finished, trial Workloads holding quota)."""
    names = set(BatchJob.objects.filter(sweep=sweep).values_list("name", flat=True))
    with KubeClient() as client:
        observed = cluster.observe(client)
    by_owner = st.index_workloads(observed.workloads)
    created = holding = 0
    for job in observed.jobs:
        namespace, name = job["metadata"]["namespace"], job["metadata"]["name"]
        if name not in names:
            continue
        workload = by_owner.get((namespace, "Job", name))
        state = wl.state(workload) if workload else None
        created += state != wl.State.FINISHED
        holding += state in HOLDING
    return created, holding


class Sampler:
    """Drives the portal one step at a time and samples the cluster after each."""

    def __init__(self, sweep: Sweep):
        self.sweep, self.samples = sweep, []

    def sample(self) -> None:
        self.samples.append(on_cluster(self.sweep))

    def step(self) -> Sweep:
        # What submit_job_task does for each released trial.
        for pk in BatchJob.objects.filter(sweep=self.sweep, state=JobState.SUBMITTED).values_list(
            "pk", flat=True
        ):
            with KubeClient() as client:
                assert cluster_sync.create_job(client, pk) == "created"
            self.sample()
        with KubeClient() as client:
            cluster_sync.sync_status(client, now=timezone.now())  # ends trials, releases more
        self.sample()
        self.sweep.refresh_from_db()
        return self.sweep


def test_a_sweep_never_has_more_trials_on_the_cluster_than_its_limit(
    sim, queue, scientist, template
):
    reconcile(trigger="manual")
    sweep = six_trials(scientist, seconds=2)
    sampler = Sampler(sweep)
    wait_until(lambda: sampler.step().state == SweepState.DONE or None, timeout=180, interval=0.2)

    states = list(BatchJob.objects.filter(sweep=sweep).values_list("state", flat=True))
    assert states == [JobState.SUCCEEDED] * 6
    created = [c for c, _ in sampler.samples]
    holding = [h for _, h in sampler.samples]
    # limit 2: at most 2 of the 6 on the cluster or holding quota at any sample, and the
    # limit was reached (2 at once), so the sweep ran in parallel up to it
    assert max(created) == 2 and max(holding) <= 2
    assert 2 in holding
    assert on_cluster(sweep) == (0, 0)


def test_cancelling_a_sweep_leaves_no_trial_running(sim, queue, scientist, template):
    reconcile(trigger="manual")
    sweep = six_trials(scientist, seconds=3600)
    sampler = Sampler(sweep)

    def two_running():
        sampler.step()
        running = BatchJob.objects.filter(sweep=sweep, state=JobState.RUNNING).count()
        return running == 2 or None

    wait_until(two_running, timeout=120, interval=0.2)
    assert cancel_sweep(sweep, actor=Principal(scientist)) == 2
    for pk in BatchJob.objects.filter(sweep=sweep).values_list("pk", flat=True):
        with KubeClient() as client:  # what teardown_job_task does for each cancelled trial
            assert cluster_sync.teardown_job(client, pk) == "deleted"
    sampler.step()  # a status pass after the cancel releases nothing

    sweep.refresh_from_db()
    assert sweep.state == SweepState.CANCELLED
    # 2 trials released and cancelled; the other 4 were never released
    assert BatchJob.objects.filter(sweep=sweep).count() == 2
    assert set(BatchJob.objects.filter(sweep=sweep).values_list("state", flat=True)) == {
        JobState.CANCELLED
    }
    assert on_cluster(sweep) == (0, 0)
    assert max(c for c, _ in sampler.samples) == 2
