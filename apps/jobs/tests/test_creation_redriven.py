"""A notebook whose creation task was lost (a worker killed, the broker down at commit)
is created by the periodic sync once it has waited 30 s, not left "requested"."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.jobs import cluster_sync
from apps.jobs.choices import NotebookState
from apps.jobs.cluster import STATEFULSET
from apps.jobs.models import Notebook
from apps.jobs.services import NotebookRequest, Principal, request_notebook
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from testkit.notebooks import IMAGE

pytestmark = [pytest.mark.django_db, pytest.mark.both_clusters]


def test_a_notebook_whose_creation_task_was_lost_is_created_by_the_sync(
    sim, pool, queue, scientist
):
    reconcile(trigger="manual")
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)
    # No on_commit in this test's transaction: the creation task is never sent, as if lost.
    notebook = request_notebook(scientist, spec, actor=Principal(scientist)).record

    with KubeClient() as client:
        cluster_sync.sync_status(client, now=timezone.now())
        with sim.client() as kube:
            assert kube.get(STATEFULSET, notebook.name, "team-vision") is None  # still its task's
        cluster_sync.sync_status(
            client, now=timezone.now() + cluster_sync.STUCK_AFTER + timedelta(seconds=1)
        )

    with sim.client() as kube:
        assert kube.get(STATEFULSET, notebook.name, "team-vision") is not None
    assert Notebook.objects.get(pk=notebook.pk).state != NotebookState.REQUESTED
