"""Notebooks and jobs never land in a protected namespace, even for a team row saved
before the deny-list that still lists one."""

from __future__ import annotations

import pytest

from apps.jobs import cluster_sync
from apps.jobs.choices import JobState, NotebookState
from apps.jobs.cluster import JOB, STATEFULSET
from apps.jobs.models import BatchJob, Notebook
from apps.queues.models import TeamNamespace
from core.kube import KubeClient
from testkit.clients import api_as
from testkit.notebooks import notebook_body

URL = "/api/v1/notebooks/"
pytestmark = pytest.mark.django_db


@pytest.fixture
def legacy(team):
    """kube-system forced past the catalog service, as a row saved before the deny-list."""
    return TeamNamespace.objects.create(team=team, name="kube-system")


def test_naming_a_protected_namespace_of_ones_team_is_refused(scientist, pool, legacy):
    body = notebook_body(namespace="kube-system")
    response = api_as(scientist).post(URL, body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "namespace_not_allowed"
    assert response.json()["field"] == "namespace"
    assert "system namespace" in response.json()["detail"]
    assert not Notebook.objects.exists()


def test_the_default_namespace_of_a_team_is_never_a_protected_one(scientist, pool, legacy):
    response = api_as(scientist).post(URL, notebook_body(), format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["namespace"] == "team-vision"


def test_a_team_with_only_protected_namespaces_cannot_submit(scientist, pool, legacy):
    TeamNamespace.objects.filter(name="team-vision").delete()
    response = api_as(scientist).post(URL, notebook_body(), format="json")
    assert response.status_code == 400
    assert (response.json()["code"], response.json()["field"]) == ("namespace_not_allowed", "team")


def test_creation_refuses_a_row_that_names_a_protected_namespace(sim, pool, scientist, template):
    response = api_as(scientist).post(URL, notebook_body(), format="json")
    notebook = Notebook.objects.get(pk=response.json()["id"])
    Notebook.objects.filter(pk=notebook.pk).update(namespace="kube-system")  # a legacy row
    with KubeClient() as client:
        assert cluster_sync.provision_notebook(client, notebook.pk) == "refused"
        assert cluster_sync.teardown_notebook(client, notebook.pk) == "skipped"
    with sim.client() as kube:
        assert kube.get(STATEFULSET, notebook.name, "kube-system") is None
    notebook.refresh_from_db()
    assert notebook.state == NotebookState.FAILED
    assert "system namespace" in notebook.state_reason


def test_job_creation_refuses_a_row_that_names_a_protected_namespace(
    sim, pool, queue, scientist, template
):
    body = {"template": "pytorch-train", "flavor": "h100", "gpus_per_pod": 1}
    response = api_as(scientist).post("/api/v1/jobs/", body, format="json")
    assert response.status_code == 201, response.json()
    job = BatchJob.objects.get(pk=response.json()["id"])
    BatchJob.objects.filter(pk=job.pk).update(namespace="kube-system")  # a legacy row
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "refused"
    with sim.client() as kube:
        assert kube.get(JOB, job.name, "kube-system") is None
    job.refresh_from_db()
    assert job.state == JobState.FAILED and "system namespace" in job.state_reason
