"""End to end against the simulated cluster over HTTP: pool queues, notebooks, jobs, status."""

import pytest
from django.utils import timezone

from apps.jobs import cluster_sync
from apps.jobs.choices import JobState, NotebookState
from apps.jobs.models import BatchJob, Notebook
from apps.jobs.services import JobRequest, NotebookRequest, Principal, request_notebook, submit_job
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from testkit.notebooks import IMAGE
from testkit.waiting import wait_until

pytestmark = [pytest.mark.django_db, pytest.mark.both_clusters]


def synced(model, pk, *states):
    def check():
        with KubeClient() as client:
            cluster_sync.sync_status(client, now=timezone.now())
        obj = model.objects.get(pk=pk)
        return obj if obj.state in states else None

    return wait_until(check, timeout=60, interval=0.2)


def test_the_pool_is_reconciled_as_its_own_queues(sim, pool, queue):
    assert reconcile(trigger="manual").errors == []
    cq = sim.get("ClusterQueue", "interactive")
    assert cq["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "quartermaster"
    (group,) = cq["spec"]["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", "nvidia.com/gpu"]
    assert "cohortName" not in cq["spec"]  # strictly reserved by default
    assert sim.get("LocalQueue", "interactive", "team-vision")["spec"]["clusterQueue"] == (
        "interactive"
    )
    assert sim.get("LocalQueue", "interactive", "team-nlp") is not None
    assert sim.get("WorkloadPriorityClass", "interactive")["value"] == 1000


def test_a_lending_pool_joins_the_cohort_and_reclaims(sim, pool, queue, admin):
    from apps.jobs.services.pool import save_setting
    from apps.queues.models import Cohort

    pool.cohort, pool.lend_idle_capacity = Cohort.objects.get(name="research"), True
    save_setting(pool, actor=admin, created=False)
    reconcile(trigger="manual")
    spec = sim.get("ClusterQueue", "interactive")["spec"]
    assert spec["cohortName"] == "research"
    assert spec["preemption"]["reclaimWithinCohort"] == "Any"
    gpu = spec["resourceGroups"][0]["flavors"][0]["resources"][2]
    assert gpu == {"name": "nvidia.com/gpu", "nominalQuota": "8", "borrowingLimit": "0"}


def test_a_notebook_goes_from_requested_to_ready(sim, pool, queue, scientist):
    reconcile(trigger="manual")
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)
    notebook = request_notebook(scientist, spec, actor=Principal(scientist)).record

    with KubeClient() as client:
        assert cluster_sync.provision_notebook(client, notebook.pk) == "created"
        assert cluster_sync.provision_notebook(client, notebook.pk) == "skipped"  # safe twice

    with sim.client() as kube:
        from apps.jobs.cluster import SERVICE, STATEFULSET

        statefulset = kube.get(STATEFULSET, notebook.name, "team-vision")
        assert kube.get(SERVICE, notebook.name, "team-vision") is not None
    labels = statefulset["metadata"]["labels"]
    assert labels["kueue.x-k8s.io/queue-name"] == "interactive"
    assert labels["kueue.x-k8s.io/priority-class"] == "interactive"

    ready = synced(Notebook, notebook.pk, NotebookState.READY)
    assert ready.ready_at is not None
    assert ready.workload_name.startswith(f"statefulset-{notebook.name}-")


def test_stopping_deletes_the_objects(sim, pool, queue, scientist):
    from apps.jobs.cluster import STATEFULSET
    from apps.jobs.services import stop_notebook

    reconcile(trigger="manual")
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)
    notebook = request_notebook(scientist, spec, actor=Principal(scientist)).record
    with KubeClient() as client:
        cluster_sync.provision_notebook(client, notebook.pk)
        stop_notebook(notebook, actor=Principal(scientist))
        assert cluster_sync.teardown_notebook(client, notebook.pk) == "deleted"
    with sim.client() as kube:
        assert kube.get(STATEFULSET, notebook.name, "team-vision") is None


def test_jobs_queue_with_a_position_and_a_plain_reason(sim, pool, queue, scientist, template):
    """vision has 16 h100 + 8 a100 GPUs of quota; the cluster has 16 GPUs (two nodes)."""
    reconcile(trigger="manual")
    jobs = []
    for i in range(4):
        request = JobRequest(
            template="pytorch-train",
            flavor="h100",
            gpus_per_pod=8,
            display_name=f"train-{i}",
            sim_duration_seconds=3600,
            checkpoint_dir=f"runs/{i}",
            checkpoint_interval_minutes=10,
        )
        job, _ = submit_job(scientist, request, actor=Principal(scientist))
        with KubeClient() as client:
            assert cluster_sync.create_job(client, job.pk) == "created"
        jobs.append(job)

    # Creation timestamps tie within a second, so which three get quota is Kueue's call.
    def settled():
        synced(BatchJob, jobs[0].pk, *JobState.active_values())
        rows = {j.state: j for j in BatchJob.objects.filter(pk__in=[j.pk for j in jobs])}
        waiting = rows.get(JobState.QUEUED)
        ok = set(rows) == {"running", "admitted", "queued"} and waiting.queue_position == 1
        # The scheduler says why the admitted one cannot be placed once it has tried.
        return rows if ok and rows["admitted"].pending_reason else None

    rows = wait_until(settled, timeout=60, interval=0.2)
    assert rows["admitted"].pending_reason == (
        "admitted but unschedulable: no node has 8 free nvidia.com/gpu"
    )
    assert rows["queued"].pending_reason == (
        "waiting for quota in vision: needs 8 nvidia.com/gpu on h100, 0 free, cohort can lend 0"
    )
    kinds = list(rows["running"].events.values_list("kind", flat=True))
    assert sorted(kinds) == ["admitted", "submitted"]
