"""Status follows the cluster through watches alone (no periodic sync runs here); the
main paths on the real control plane too."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.utils.dateparse import parse_datetime

from apps.jobs import cluster_sync
from apps.jobs.choices import JobEventKind, JobState, NotebookState
from apps.jobs.cluster import POD, STATEFULSET
from apps.jobs.models import BatchJob, JobEvent, Notebook
from apps.jobs.services import (
    JobRequest,
    NotebookRequest,
    Principal,
    cancel_job,
    request_notebook,
    submit_job,
)
from apps.jobs.status import condition
from apps.jobs.watch import LEASE, STREAMS, run_status_watch
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from informer.models import WatchCursor
from informer.tasks import run_informer_task
from testkit.factories import set_policy
from testkit.notebooks import IMAGE
from testkit.waiting import wait_until
from testkit.workers import Worker, shared_database_url

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


@contextmanager
def watching(seconds: float):
    """Watch runs in the background, as the Celery task chain would run them, for
    ``seconds`` each and until the block has ended (a slow machine cannot end the watch
    before the event the block waits for); yields their summed counters."""
    result: dict = {"events": 0, "full_syncs": 0, "errors": [], "runs": 0}
    block_done = threading.Event()

    def run():
        try:
            while not result["runs"] or not block_done.is_set():
                one = run_status_watch(seconds=seconds)
                assert "skipped" not in one, one  # a stale lease would hide every event
                result["runs"] += 1
                result["errors"] += one["errors"]
                result["events"] += one["events"]
                result["full_syncs"] += one["full_syncs"]
        except AssertionError as exc:
            result["errors"].append(str(exc))
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        yield result
    finally:
        block_done.set()
        thread.join(timeout=2 * seconds + 60)
    assert not thread.is_alive() and not result["errors"], result


def new_notebook(user) -> Notebook:
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)
    notebook = request_notebook(user, spec, actor=Principal(user)).record
    with KubeClient() as client:
        assert cluster_sync.provision_notebook(client, notebook.pk) == "created"
    return notebook


def in_state(model, pk, *states):
    return lambda: model.objects.filter(pk=pk, state__in=states).first()


def pod_ready_at(sim, notebook: Notebook) -> str | None:
    with sim.client() as kube:
        pod = kube.get(POD, notebook.pod_name, notebook.namespace)
    ready = condition(pod, "Ready") or {}
    return ready.get("lastTransitionTime") if ready.get("status") == "True" else None


@pytest.mark.parametrize("sim", ["sim", "real"], indirect=True)
def test_a_notebook_turns_ready_from_watch_events(sim, pool, queue, scientist):
    reconcile(trigger="manual")
    with watching(seconds=15):
        notebook = new_notebook(scientist)
        ready = wait_until(in_state(Notebook, notebook.pk, NotebookState.READY), timeout=60)
    assert ready.workload_name.startswith(f"statefulset-{notebook.name}-")
    # Ready since the pod became ready, as the cluster says, not since someone looked —
    # but never before the row was created: the cluster stamps to the second, so a pod
    # ready within the row's first second reads as ready at its creation.
    cluster_says = parse_datetime(pod_ready_at(sim, notebook))
    assert ready.ready_at == max(cluster_says, ready.created_at)


def test_the_next_run_resumes_where_the_last_one_stopped(sim, pool, queue, scientist):
    reconcile(trigger="manual")
    with watching(seconds=2) as first:
        pass
    assert first["full_syncs"] >= 1  # nothing saved yet: it listed, then did one level pass
    saved = dict(WatchCursor.objects.values_list("name", "resource_version"))
    assert all(saved.get(stream.cursor) for stream in STREAMS)

    notebook = new_notebook(scientist)  # while nobody watches
    wait_until(lambda: pod_ready_at(sim, notebook), timeout=60)
    assert Notebook.objects.get(pk=notebook.pk).state == NotebookState.QUEUED
    with watching(seconds=4) as second:
        wait_until(in_state(Notebook, notebook.pk, NotebookState.READY), timeout=60)
    assert second["full_syncs"] == 0 and second["events"] > 0  # replayed, not relisted


def test_a_notebook_whose_objects_vanish_fails_with_the_reason(sim, pool, queue, scientist):
    reconcile(trigger="manual")
    with watching(seconds=12):
        notebook = new_notebook(scientist)
        wait_until(in_state(Notebook, notebook.pk, NotebookState.READY), timeout=60)
        with sim.client() as kube:
            kube.delete(STATEFULSET, notebook.name, notebook.namespace)
        failed = wait_until(in_state(Notebook, notebook.pk, NotebookState.FAILED), timeout=60)
    assert failed.state_reason == cluster_sync.DELETED


def train(user, i: int, seconds: int = 3600, tier: str = "") -> BatchJob:
    request = JobRequest(
        template="pytorch-train",
        flavor="h100",
        gpus_per_pod=8,
        priority_tier=tier,
        display_name=f"train-{i}",
        sim_duration_seconds=seconds,
        checkpoint_dir=f"runs/{i}",
        checkpoint_interval_minutes=10,
    )
    job, _ = submit_job(user, request, actor=Principal(user))
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "created"
    return job


@pytest.mark.parametrize("sim", ["sim", "real"], indirect=True)
def test_a_job_runs_and_succeeds_with_its_history(sim, pool, queue, scientist, template):
    reconcile(trigger="manual")
    with watching(seconds=20):
        job = train(scientist, 0, seconds=3)
        wait_until(in_state(BatchJob, job.pk, JobState.RUNNING), timeout=60)
        done = wait_until(in_state(BatchJob, job.pk, JobState.SUCCEEDED), timeout=60)
    assert done.ended_at is not None and done.queue_position is None
    assert {"submitted", "admitted"} <= set(done.events.values_list("kind", flat=True))


@pytest.mark.parametrize("sim", ["sim", "real"], indirect=True)
def test_queued_jobs_move_up_when_the_one_ahead_is_admitted(sim, pool, queue, scientist, template):
    """Of five 8-GPU jobs, three get quota (as in test_cluster_flow) and two wait."""
    reconcile(trigger="manual")
    with watching(seconds=30):
        jobs = [train(scientist, i) for i in range(5)]

        def queued_positions():
            rows = BatchJob.objects.filter(pk__in=[j.pk for j in jobs], state=JobState.QUEUED)
            return sorted(r.queue_position for r in rows if r.queue_position is not None)

        def admitted():
            ids = [j.pk for j in jobs]
            return list(BatchJob.objects.filter(pk__in=ids).exclude(state=JobState.QUEUED))

        # Positions can be known before the three admitted jobs leave Queued: wait for both.
        wait_until(lambda: queued_positions() == [1, 2] and len(admitted()) == 3, timeout=60)
        holder = admitted()[0]
        cancel_job(holder, actor=Principal(scientist))
        with KubeClient() as client:
            cluster_sync.teardown_job(client, holder.pk)
        # The head is admitted (its own events); the other's position follows its queue's.
        wait_until(lambda: queued_positions() == [1], timeout=60)


@pytest.mark.parametrize("sim", ["sim", "real"], indirect=True)
def test_a_preemption_is_recorded_with_who_preempted(
    sim, pool, queue, scientist, lead, template, admin
):
    set_policy(queue, admin, preemption={"within_cluster_queue": "LowerPriority"})
    reconcile(trigger="manual")
    with watching(seconds=30):
        low = [train(scientist, i, tier="p3-low") for i in range(4)]  # three get quota
        wait_until(lambda: BatchJob.objects.filter(state=JobState.QUEUED).count() == 1, timeout=60)
        urgent = train(lead, 9, tier="p1-high")

        def preempted():
            return JobEvent.objects.filter(job__in=low, kind=JobEventKind.PREEMPTED).first()

        event = wait_until(preempted, timeout=60)
    assert event.preemptor == f"team-vision/{urgent.name}"
    assert event.reason  # Kueue's reason, e.g. InClusterQueue


def test_a_run_hands_over_to_the_next_without_waiting_for_beat(sim, pool, tmp_path):
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL: a real worker")
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    env = {
        **os.environ,
        "DATABASE_URL": shared_database_url(),
        "KUBECONFIG": str(sim.kubeconfig),
        "QM_DATA_DIR": str(tmp_path / "worker-data"),
    }
    worker = Worker(env, tmp_path).start()  # no beat: only the chain can start runs
    try:
        run_informer_task.delay(seconds=2)
        owners: set[str] = set()

        def three_runs() -> bool:
            owners.add(WatchCursor.objects.get_or_create(name=LEASE)[0].lease_owner)
            return len(owners - {""}) >= 3

        wait_until(three_runs, timeout=60, interval=0.1)
    finally:
        worker.stop()
        # The chain's next run is still queued: left there, a later test's worker would
        # run it against a cluster long gone, holding the watch lease.
        redis.Redis.from_url(settings.REDIS_URL).flushdb()
