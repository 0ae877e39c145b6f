"""The status poll is cached per notebook version: a state change shows at once, and a
reader who may not see the notebook gets 404 even while an entry is cached."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.jobs import services
from apps.jobs.models import Notebook
from apps.jobs.tests.conftest import notebook_body
from conftest import api_as

URL = "/api/v1/notebooks/"


@pytest.fixture
def notebook(scientist, pool):
    return api_as(scientist).post(URL, notebook_body(), format="json").json()


@pytest.mark.django_db
def test_it_shows_a_state_change_at_once(scientist, notebook):
    client = api_as(scientist)
    assert client.get(f"{URL}{notebook['id']}/").json()["state"] == notebook["state"]
    services.stop_notebook(
        Notebook.objects.get(pk=notebook["id"]), actor=services.Principal(user=scientist)
    )
    assert client.get(f"{URL}{notebook['id']}/").json()["state"] != notebook["state"]


@pytest.mark.django_db
def test_it_never_serves_a_cached_status_to_someone_who_may_not_see_it(
    scientist, other_lead, notebook
):
    assert api_as(scientist).get(f"{URL}{notebook['id']}/").status_code == 200
    assert api_as(other_lead).get(f"{URL}{notebook['id']}/").status_code == 404


@pytest.mark.django_db
def test_it_renders_the_same_body_from_the_cache(scientist, notebook):
    client = api_as(scientist)
    first = client.get(f"{URL}{notebook['id']}/").json()
    with CaptureQueriesContext(connection) as queries:
        again = client.get(f"{URL}{notebook['id']}/").json()
    assert again == first
    assert not any("jobs_notebookprofile" in q["sql"] for q in queries.captured_queries)
