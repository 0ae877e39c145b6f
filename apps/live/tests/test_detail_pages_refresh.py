"""Job and notebook pages of active work poll their API record; finished work does not."""

import pytest

from apps.jobs.services import (
    JobRequest,
    NotebookRequest,
    Principal,
    cancel_job,
    request_notebook,
    stop_notebook,
    submit_job,
)
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db
MARKER = "data-refresh-url="


def page_of(client, user, url: str) -> str:
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.usefixtures("queue", "template")
def test_an_active_job_page_polls_until_the_job_ends(client, scientist):
    me = Principal(scientist)
    job, _ = submit_job(scientist, JobRequest(template="pytorch-train", flavor="h100"), actor=me)
    page = page_of(client, scientist, f"/jobs/{job.pk}/")
    assert f'{MARKER}"/api/v1/jobs/{job.pk}/"' in page
    assert 'data-refresh-state="submitted|"' in page and "js/autorefresh.js" in page

    cancel_job(job, actor=me)
    assert MARKER not in page_of(client, scientist, f"/jobs/{job.pk}/")


@pytest.mark.usefixtures("pool")
def test_an_active_notebook_page_polls_until_it_stops(client, scientist):
    me = Principal(scientist)
    notebook = request_notebook(
        scientist, NotebookRequest(image=IMAGE, flavor="h100"), actor=me
    ).record
    page = page_of(client, scientist, f"/notebooks/{notebook.pk}/")
    assert f'{MARKER}"/api/v1/notebooks/{notebook.pk}/"' in page

    stop_notebook(notebook, actor=me)
    assert MARKER not in page_of(client, scientist, f"/notebooks/{notebook.pk}/")
