"""The ETA endpoint against the simulated cluster over HTTP: read the cluster, run it forward."""

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from apps.jobs import cluster_sync
from apps.jobs.models import BatchJob
from apps.jobs.services import (
    JobRequest,
    NotebookRequest,
    Principal,
    request_notebook,
    submit_job,
)
from apps.queues.reconcile.run import reconcile
from apps.whatif.models import EtaPrediction
from apps.whatif.replay.start_estimates import DEFAULT_RUN_MS
from core.kube import KubeClient
from testkit.clients import api_as
from testkit.notebooks import IMAGE
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db


def _submit(scientist, i: int) -> BatchJob:
    request = JobRequest(
        template="pytorch-train",
        flavor="h100",
        gpus_per_pod=8,
        display_name=f"train-{i}",
        sim_duration_seconds=3 * 3600,
        checkpoint_dir=f"runs/{i}",
        checkpoint_interval_minutes=10,
    )
    job, _ = submit_job(scientist, request, actor=Principal(scientist))
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "created"
    return job


def _eta(user, job) -> dict:
    response = api_as(user).get(
        "/api/v1/whatif/eta/", {"namespace": job.namespace, "workload": job.name}
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_a_queued_job_is_predicted_to_start_when_the_running_ones_are_expected_to_end(
    sim, pool, queue, scientist, template
):
    # Three 8-GPU jobs get quota (one of them no node yet, see test_cluster_flow); the fourth waits.
    reconcile(trigger="manual")
    jobs = [_submit(scientist, i) for i in range(4)]

    def answers():
        found = {job.pk: _eta(scientist, job) for job in jobs}
        states = sorted(a["state"] for a in found.values())
        return found if states == ["admitted", "admitted", "admitted", "pending"] else None

    asked = timezone.now()
    found = wait_until(answers, timeout=60, interval=0.5)
    waiting = next(a for a in found.values() if a["state"] == "pending")
    predicted = datetime.fromisoformat(waiting["predicted_start"])
    # No recorded history yet: every job is expected to run the default hour, so the
    # queued one starts when the first running one is expected to finish.
    expected = asked + timedelta(milliseconds=DEFAULT_RUN_MS)
    assert abs((predicted - expected).total_seconds()) < 120
    assert waiting["accuracy"]["scored_predictions"] == 0
    # Every pending answer is stored for scoring (polling asked more than once).
    stored = EtaPrediction.objects.filter(name=waiting["workload"]).first()
    # The API writes it to the second (UTC, Z); the stored one keeps its fraction.
    assert stored.predicted_start.replace(microsecond=0) == predicted


def test_another_teams_job_has_no_eta_for_another_teams_lead(
    sim, pool, queue, scientist, template, other_lead
):
    reconcile(trigger="manual")
    job = _submit(scientist, 0)
    response = api_as(other_lead).get(
        "/api/v1/whatif/eta/", {"namespace": job.namespace, "workload": job.name}
    )
    assert response.status_code == 403


def test_a_notebook_is_found_by_its_own_name(sim, pool, queue, scientist):
    # Its Workload is named after the StatefulSet's pod group; the page asks by the notebook's name.
    reconcile(trigger="manual")
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)
    notebook = request_notebook(scientist, spec, actor=Principal(scientist)).record
    with KubeClient() as client:
        assert cluster_sync.provision_notebook(client, notebook.pk) == "created"

    def admitted():
        answer = _eta(scientist, notebook)
        return answer if answer["state"] == "admitted" else None

    answer = wait_until(admitted, timeout=60, interval=0.5)
    assert answer["workload"].startswith(f"statefulset-{notebook.name}-")
