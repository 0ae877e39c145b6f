"""The demo's seeded cluster runs one of alice's notebooks; the demo records it as hers.
And the demo's sweep: submitted once, trials released two at a time."""

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from apps.jobs import cluster_sync
from apps.jobs.choices import NotebookState
from apps.jobs.cluster import STATEFULSET
from apps.jobs.models import BatchJob, Notebook, Sweep
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from portal.demo.notebooks import adopt_seeded_notebooks
from portal.demo.seeding import load_everything
from portal.demo.sweeps import submit_demo_sweep
from simcluster import demo as sim_demo
from testkit.nodes import add_node
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def demo_cluster(sim):
    """The demo catalogue and its nodes in the live simulated cluster, and the portal's demo."""
    catalogue = sim_demo.demo_objects({"app.kubernetes.io/managed-by": "quartermaster"})
    for obj in catalogue:
        sim.create(obj)
    for node in sim_demo.nodes_for(catalogue):
        gpus = {k: v for k, v in node["status"]["capacity"].items() if "nvidia.com" in k}
        add_node(sim, node["metadata"]["name"], labels=node["metadata"]["labels"], devices=gpus)
    load_everything()
    reconcile(trigger="seed_demo")
    return sim


def test_the_idle_notebook_is_alices_since_it_was_created(demo_cluster):
    with demo_cluster.client() as kube:
        created = kube.create(STATEFULSET, sim_demo.idle_notebook())["metadata"][
            "creationTimestamp"
        ]
    with KubeClient() as client:
        assert adopt_seeded_notebooks(client) == 1
        assert adopt_seeded_notebooks(client) == 0  # safe twice

    def ready():
        with KubeClient() as client:
            cluster_sync.sync_status(client, now=timezone.now())
        return Notebook.objects.filter(state=NotebookState.READY).first()

    notebook = wait_until(ready, timeout=60, interval=0.2)
    assert (notebook.owner.username, notebook.requested_by.username) == ("alice", "alice")
    assert (notebook.namespace, notebook.name) == ("team-vision", sim_demo.IDLE_NOTEBOOK)
    assert notebook.created_at == parse_datetime(created)
    assert (notebook.flavor.name, notebook.gpus, notebook.profile.name) == ("a100-80gb", 1, "small")
    assert notebook.pool.idle_grace_minutes == 2  # so the demo's cull follows within minutes


def test_the_demo_sweep_is_submitted_once_and_released_two_at_a_time(demo_cluster):
    sweep = submit_demo_sweep()
    # 3 learning rates × 2 seeds = 6 trials; alice's limit is the default 2 per user.
    assert (sweep.owner.username, sweep.trial_count, sweep.concurrency_limit) == ("alice", 6, 2)
    released = BatchJob.objects.filter(sweep=sweep)
    assert released.count() == 2
    # Sweeps run at the lowest tier unless asked otherwise.
    assert {(job.flavor.name, job.priority_tier.name) for job in released} == {
        ("h100-80gb", "p3-best-effort")
    }
    assert submit_demo_sweep().pk == sweep.pk  # the launcher runs it again on a resumed start
    assert (Sweep.objects.count(), BatchJob.objects.count()) == (1, 2)


def test_the_demo_inference_service_is_requested_once_and_serves(demo_cluster):
    from apps.jobs.choices import InferenceState
    from apps.jobs.inference_sync import create_inference
    from apps.jobs.models import InferenceService
    from portal.demo.inference import request_demo_inference

    service = request_demo_inference()
    # ines's model server: 2 replicas × 1 h100 GPU in team inference's production queue.
    assert (service.owner.username, service.team.slug, service.queue.name) == (
        "ines",
        "inference",
        "inference",
    )
    assert (service.replicas, service.total_gpus, service.priority_tier.name) == (
        2,
        2,
        "p0-critical",
    )
    assert request_demo_inference().pk == service.pk  # safe on a resumed start
    with KubeClient() as client:
        assert create_inference(client, service.pk) == "created"

    def serving():
        with KubeClient() as client:
            cluster_sync.sync_status(client, now=timezone.now())
        service.refresh_from_db()
        return service.state == InferenceState.SERVING or None

    wait_until(serving, timeout=120, interval=0.3)
    assert InferenceService.objects.count() == 1
