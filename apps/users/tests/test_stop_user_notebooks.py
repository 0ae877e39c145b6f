"""An admin stops all of a user's notebooks at once, through the notebook stop service."""

from __future__ import annotations

import pytest

from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook
from apps.jobs.services import NotebookRequest, Principal, request_notebook
from apps.queues.models import AuditEntry
from apps.queues.services import add_membership
from core.roles import TeamRole
from testkit.clients import api_as
from testkit.factories import UserFactory
from testkit.notebooks import IMAGE

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("pool")]


def _notebook(user):
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)
    return request_notebook(user, spec, actor=Principal(user)).record


@pytest.fixture
def peer(team, admin):
    user = UserFactory(username="peer")
    add_membership(team=team, user=user, role=TeamRole.SCIENTIST, actor=admin)
    return user


def test_it_stops_every_notebook_of_the_user_and_no_one_elses(admin, scientist, peer):
    mine = [_notebook(scientist), _notebook(scientist)]
    theirs = _notebook(peer)
    response = api_as(admin).post("/api/v1/users/scientist/stop-notebooks/", {}, format="json")
    assert response.status_code == 200, response.content
    assert response.json() == {"notebooks_stopped": 2}
    states = dict(Notebook.objects.values_list("pk", "state"))
    assert [states[nb.pk] for nb in mine] == [NotebookState.STOPPED] * 2
    assert states[theirs.pk] != NotebookState.STOPPED
    # One entry on the user with the count, besides the stop service's one per notebook.
    on_user = AuditEntry.objects.filter(object_type="user", object_id=str(scientist.pk))
    assert list(on_user.values_list("after", flat=True)) == [{"notebooks_stopped": 2}]
    again = api_as(admin).post("/api/v1/users/scientist/stop-notebooks/", {}, format="json")
    assert again.json() == {"notebooks_stopped": 0}


def test_disabling_can_stop_the_notebooks_too(admin, scientist):
    _notebook(scientist)
    body = {"stop_notebooks": True}
    response = api_as(admin).post("/api/v1/users/scientist/disable/", body, format="json")
    assert response.json()["running_notebooks"] == 0
    assert not Notebook.objects.active().filter(owner=scientist).exists()


def test_disabling_alone_leaves_them_running(admin, scientist):
    _notebook(scientist)
    response = api_as(admin).post("/api/v1/users/scientist/disable/", {}, format="json")
    assert response.json()["running_notebooks"] == 1


def test_the_page_button_stops_them(admin, scientist, client):
    _notebook(scientist)
    client.force_login(admin)
    response = client.post(f"/administration/users/{scientist.pk}/stop-notebooks/", follow=True)
    assert "Stopped 1 notebook(s) of scientist." in response.content.decode()


def test_a_lead_may_not_use_it(lead, scientist):
    nb = _notebook(scientist)
    response = api_as(lead).post("/api/v1/users/scientist/stop-notebooks/", {}, format="json")
    assert response.status_code == 404  # others are not visible to non-admins
    assert Notebook.objects.get(pk=nb.pk).state != NotebookState.STOPPED


def test_the_page_disables_and_stops_when_asked(admin, scientist, client):
    _notebook(scientist)
    client.force_login(admin)
    url = f"/administration/users/{scientist.pk}/disable/"
    response = client.post(url, {"stop_notebooks": "on"}, follow=True)
    assert "scientist is disabled" in response.content.decode()
    scientist.refresh_from_db()
    assert not scientist.is_active
    assert not Notebook.objects.active().filter(owner=scientist).exists()
