"""A retried create never makes a second notebook, and replays the first answer."""

import pytest

from apps.jobs.models import Notebook
from testkit.clients import api_as, token_client
from testkit.notebooks import notebook_body

URL = "/api/v1/notebooks/"


def post(client, key, **body):
    return client.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY=key)


@pytest.mark.django_db
def test_a_retry_returns_the_same_notebook(scientist, pool):
    client = api_as(scientist)
    first = post(client, "abc", **notebook_body())
    again = post(client, "abc", **notebook_body())
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"]
    assert again["Idempotent-Replayed"] == "true"
    assert Notebook.objects.count() == 1


@pytest.mark.django_db
def test_a_retry_is_replayed_even_when_the_limit_is_now_reached(scientist, pool):
    client = api_as(scientist)
    first = post(client, "one", **notebook_body(gpus=2))
    assert post(client, "one", **notebook_body(gpus=2)).json()["id"] == first.json()["id"]


@pytest.mark.django_db
def test_the_same_key_with_another_body_is_refused(scientist, pool):
    client = api_as(scientist)
    post(client, "abc", **notebook_body())
    response = post(client, "abc", **notebook_body(gpus=2))
    assert response.status_code == 422
    assert response.json()["code"] == "idempotency_key_reused"


@pytest.mark.django_db
def test_keys_are_per_principal(scientist, lead, pool):
    post(api_as(scientist), "same", **notebook_body())
    assert post(api_as(lead), "same", **notebook_body()).status_code == 201
    assert Notebook.objects.count() == 2


@pytest.mark.django_db
def test_a_launcher_retry_for_a_user_is_one_notebook(launcher, scientist):
    client = token_client(launcher["raw"])
    first = post(client, "hub-42", **notebook_body(user="scientist"))
    again = post(client, "hub-42", **notebook_body(user="scientist"))
    assert first.status_code == 201, first.json()
    assert again.json()["id"] == first.json()["id"]
    notebook = Notebook.objects.get()
    assert notebook.owner == scientist
    assert notebook.requested_by == launcher["user"]
