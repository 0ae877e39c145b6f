"""The pages: request a notebook, see it, renew and stop it; submit, list and cancel a job."""

import pytest

from apps.jobs.choices import JobState, NotebookState
from apps.jobs.models import BatchJob, Notebook
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.queues.services import add_membership
from testkit.factories import UserFactory
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(client, scientist):
    client.force_login(scientist)
    return client


def test_the_nav_links_to_notebooks_and_jobs(browser, pool):
    page = browser.get("/notebooks/").content.decode()
    assert 'href="/notebooks/"' in page and 'href="/jobs/"' in page
    assert "8 of 8 h100 GPUs free" in page


def test_request_renew_and_stop_a_notebook(browser, pool):
    body = {
        "image": IMAGE,
        "flavor": "h100",
        "gpus": 1,
        "profile": "standard",
        "ttl_hours": 4,
        "team": "vision",
    }
    response = browser.post("/notebooks/new/", body)
    notebook = Notebook.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/notebooks/{notebook.pk}/"
    assert "Requested" in browser.get(f"/notebooks/{notebook.pk}/").content.decode()
    browser.post(f"/notebooks/{notebook.pk}/renew/")
    browser.post(f"/notebooks/{notebook.pk}/stop/", {"confirm": "yes"})
    notebook.refresh_from_db()
    assert notebook.state == NotebookState.STOPPED


def test_a_queued_notebook_page_asks_for_its_predicted_start(browser, pool):
    body = {"image": IMAGE, "flavor": "h100", "gpus": 1, "profile": "standard", "ttl_hours": 4}
    browser.post("/notebooks/new/", {**body, "team": "vision"})
    notebook = Notebook.objects.get()
    page = browser.get(f"/notebooks/{notebook.pk}/").content.decode()
    assert "data-eta" not in page  # only a queued notebook has a start to predict
    Notebook.objects.filter(pk=notebook.pk).update(state=NotebookState.QUEUED)
    page = browser.get(f"/notebooks/{notebook.pk}/").content.decode()
    link = f"/api/v1/whatif/eta/?namespace=team-vision&amp;workload={notebook.name}"
    assert f'href="{link}" data-eta' in page
    assert "whatif/eta.js" in page


def test_the_form_shows_a_refusal(browser, pool):
    body = {
        "image": IMAGE,
        "flavor": "h100",
        "gpus": 3,
        "profile": "standard",
        "ttl_hours": 4,
        "team": "vision",
    }
    page = browser.post("/notebooks/new/", body).content.decode()
    assert "at most 2 notebook GPUs" in page
    assert not Notebook.objects.exists()


def test_submit_list_and_cancel_a_job(browser, queue, template):
    body = {
        "template": "pytorch-train",
        "flavor": "h100",
        "gpus_per_pod": 8,
        "pods": 2,
        "priority_tier": "p2-standard",
        "max_runtime_minutes": 120,
        "team": "vision",
        "checkpoint_dir": "runs/a",
        "checkpoint_interval_minutes": 10,
        "command": "python\ntrain.py",
    }
    response = browser.post("/jobs/new/", body)
    job = BatchJob.objects.get()
    assert response.status_code == 302, response.content.decode()[:2000]
    assert job.command == ["python", "train.py"] and job.total_gpus == 16
    assert job.display_name in browser.get("/jobs/?scope=mine").content.decode()
    assert "Admission history" in browser.get(f"/jobs/{job.pk}/").content.decode()
    browser.post(f"/jobs/{job.pk}/cancel/")
    job.refresh_from_db()
    assert job.state == JobState.CANCELLED


def test_a_scientist_cannot_pick_a_lead_tier(browser, queue, template):
    body = {
        "template": "pytorch-train",
        "flavor": "h100",
        "gpus_per_pod": 1,
        "pods": 1,
        "priority_tier": "p1-high",
        "max_runtime_minutes": 60,
        "team": "vision",
    }
    browser.post("/jobs/new/", body)
    assert not BatchJob.objects.exists()


def test_other_teams_jobs_are_not_found(client, other_lead, scientist, queue, template):
    from apps.jobs.services import JobRequest, Principal, submit_job

    job, _ = submit_job(
        scientist, JobRequest(template="pytorch-train", flavor="h100"), actor=Principal(scientist)
    )
    client.force_login(other_lead)
    assert client.get(f"/jobs/{job.pk}/").status_code == 404
    assert client.post(f"/jobs/{job.pk}/cancel/").status_code == 404


def test_a_teammate_who_sees_a_job_is_refused_its_cancel_with_403(
    client, scientist, team, admin, queue, template
):
    job, _ = submit_job(
        scientist, JobRequest(template="pytorch-train", flavor="h100"), actor=Principal(scientist)
    )
    peer = UserFactory(username="peer")
    add_membership(team=team, user=peer, role="scientist", actor=admin)
    client.force_login(peer)
    assert client.get(f"/jobs/{job.pk}/").status_code == 200  # jobs are team business
    response = client.post(f"/jobs/{job.pk}/cancel/")
    assert response.status_code == 403
    assert "you may not cancel this job" in response.content.decode()
    job.refresh_from_db()
    assert job.state != JobState.CANCELLED
