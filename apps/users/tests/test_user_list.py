"""The users list (page and API): search, active/disabled, teams, last sign-in and
running notebooks; admins see everyone, anyone else only themselves."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.jobs.services import NotebookRequest, Principal, request_notebook
from apps.queues.services import add_membership
from apps.users.services import disable_user
from core.roles import TeamRole
from testkit.clients import api_as
from testkit.factories import UserFactory
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db


def _usernames(response) -> list[str]:
    return [row["username"] for row in response.json()["results"]]


@pytest.mark.usefixtures("pool")
def test_it_lists_teams_sign_in_and_running_notebooks(admin, lead, scientist):
    scientist.last_login = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    scientist.save()
    request_notebook(
        scientist, NotebookRequest(image=IMAGE, flavor="h100"), actor=Principal(scientist)
    )
    rows = {r["username"]: r for r in api_as(admin).get("/api/v1/users/").json()["results"]}
    assert rows["scientist"]["teams"] == {"vision": "scientist"}
    assert rows["scientist"]["last_sign_in"] == "2026-12-01T09:30:00Z"
    assert rows["scientist"]["running_notebooks"] == 1
    assert rows["lead"]["running_notebooks"] == 0
    assert rows["lead"]["last_sign_in"] is None


def test_search_and_status(admin, lead, scientist):
    UserFactory(username="carol", display_name="Carol Smith", email="c@example.org")
    disable_user(scientist, actor=admin)
    client = api_as(admin)
    assert _usernames(client.get("/api/v1/users/?search=smith")) == ["carol"]
    assert _usernames(client.get("/api/v1/users/?search=EXAMPLE.org")) == ["carol"]
    assert _usernames(client.get("/api/v1/users/?status=disabled")) == ["scientist"]
    assert "scientist" not in _usernames(client.get("/api/v1/users/?status=active"))


def test_anyone_else_sees_only_themselves(lead, scientist):
    assert _usernames(api_as(scientist).get("/api/v1/users/")) == ["scientist"]
    assert api_as(scientist).get("/api/v1/users/lead/").status_code == 404
    assert api_as(scientist).get("/api/v1/users/scientist/").status_code == 200


def test_the_page_searches(admin, lead, scientist, client):
    client.force_login(admin)
    page = client.get("/administration/users/?q=lea&status=active").content.decode()
    assert "<td>lead" in page and "<td>scientist" not in page


def test_the_list_costs_the_same_queries_for_more_users(admin, team):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert api_as(admin).get("/api/v1/users/").status_code == 200
        return len(captured)

    few = queries()
    for n in range(5):
        user = UserFactory(username=f"user{n}")
        add_membership(team=team, user=user, role=TeamRole.SCIENTIST, actor=admin)
    assert queries() == few
