"""A record's times are on one clock: a cluster whose clock is behind ours (the simulated
cluster's past) never makes a notebook ready before it was created."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.utils import timezone

from apps.jobs import sync
from apps.jobs.choices import NotebookState
from apps.jobs.models import BatchJob, Notebook
from apps.jobs.services import NotebookRequest, Principal, request_notebook
from apps.jobs.status import ready_since
from apps.jobs.tests.conftest import IMAGE
from apps.queues.reconcile.run import reconcile
from apps.queues.tests.cluster import wait_until
from core.kube import KubeClient
from informer.kinds import POD

pytestmark = pytest.mark.django_db(transaction=True)

AHEAD = timedelta(hours=2)  # our clock ahead of the cluster's: its times are in our past


def test_a_pod_ready_in_the_clusters_past_is_stored_ready_at_creation(sim, pool, queue, scientist):
    reconcile(trigger="manual")
    created = timezone.now().replace(microsecond=0) + AHEAD
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)
    notebook = request_notebook(scientist, spec, actor=Principal(scientist), now=created).record
    with KubeClient() as client:
        assert sync.provision_notebook(client, notebook.pk) == "created"

    def ready():
        with KubeClient() as client:
            sync.sync_status(client, now=timezone.now() + AHEAD + timedelta(minutes=1))
        return Notebook.objects.filter(pk=notebook.pk, state=NotebookState.READY).first()

    stored = wait_until(ready, timeout=60, interval=0.2)
    with sim.client() as kube:
        pods = [p for p in kube.list(POD) if p["metadata"]["name"].startswith(notebook.name)]
    # The cluster says the pod became ready about two hours before the row was created.
    assert ready_since(pods) < created - timedelta(hours=1)
    # So the stored pair is clamped: ready at the creation, not before it.
    assert stored.created_at == created and stored.ready_at == created
    assert not Notebook.objects.times_out_of_order().exists()


def test_the_check_names_rows_whose_times_are_out_of_order(pool, scientist):
    now = timezone.now()
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)
    notebook = request_notebook(scientist, spec, actor=Principal(scientist), now=now).record
    call_command("check", "--database", "default")  # in order: no warning
    # By hand, as an unclamped cluster time would have it: ready three days before created.
    Notebook.objects.filter(pk=notebook.pk).update(ready_at=now - timedelta(days=3))
    assert list(Notebook.objects.times_out_of_order()) == [notebook]
    assert not BatchJob.objects.times_out_of_order().exists()
    with pytest.raises(SystemCheckError, match=r"1 notebooks have times out of order"):
        call_command("check", "--database", "default", "--fail-level", "WARNING")
