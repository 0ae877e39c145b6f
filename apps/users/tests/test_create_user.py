"""An admin creates a local account over the API or the page; the person sets their
password through a one-time link."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.queues.models import AuditEntry
from testkit.clients import api_as

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-passphrase-of-carol"
CAROL = {"username": "carol", "email": "carol@example.org", "display_name": "Carol Smith"}


def _set_password(client: Client, link: str) -> int:
    """Open the link and post a new password, as a browser does; the POST's status."""
    page = client.get(link, follow=True)
    form_url = page.redirect_chain[-1][0] if page.redirect_chain else link
    body = {"new_password1": PASSWORD, "new_password2": PASSWORD}
    return client.post(form_url, body).status_code


def test_it_creates_carol_with_her_teams_and_a_one_time_link(admin, team):
    body = {**CAROL, "teams": {"vision": "scientist"}}
    response = api_as(admin).post("/api/v1/users/", body, format="json")
    assert response.status_code == 201, response.content
    answer = response.json()
    assert answer["teams"] == {"vision": "scientist"}
    assert answer["is_active"] is True
    carol = User.objects.get(username="carol")
    assert carol.display_name == "Carol Smith"
    assert not carol.has_usable_password()
    link = answer["set_password_url"]
    assert link.startswith("http://testserver/set-password/")
    created = AuditEntry.objects.get(object_type="user", object_id=str(carol.pk), action="create")
    assert created.actor == admin
    assert created.after["teams"] == {"vision": "scientist"}
    # The link is shown once and kept nowhere: not in the audit trail either.
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert token not in str(created.after) and token not in created.reason


def test_the_link_sets_a_password_once(admin):
    link = api_as(admin).post("/api/v1/users/", CAROL, format="json").json()["set_password_url"]
    browser = Client()
    assert _set_password(browser, link) == 302
    assert Client().login(username="carol", password=PASSWORD)
    again = Client().get(link, follow=True)
    assert "This link is not valid" in again.content.decode()


def test_a_disabled_users_link_does_not_work(admin):
    link = api_as(admin).post("/api/v1/users/", CAROL, format="json").json()["set_password_url"]
    api_as(admin).post("/api/v1/users/carol/disable/", {}, format="json")
    page = Client().get(link, follow=True)
    assert "This link is not valid" in page.content.decode()


def test_the_page_shows_the_link_once(admin, team, client):
    client.force_login(admin)
    form = {**CAROL, "team_vision": "lead"}
    response = client.post("/administration/users/new/", form)
    assert response.status_code == 201
    link = re.search(
        r"<code>(http://testserver/set-password/[^<]+)</code>", response.content.decode()
    )
    assert link, response.content.decode()
    assert User.objects.get(username="carol").memberships.get().role == "lead"
    assert "set-password" not in client.get("/administration/users/").content.decode()


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"username": "bad name!"}, "username", "e.g. carol"),
        ({"username": "root"}, "username", "is taken"),
        ({"username": "carol", "email": "not-mail"}, "email", "e.g. carol@example.org"),
        ({"username": "carol", "teams": {"nope": "scientist"}}, "teams.nope", "e.g. vision"),
    ],
)
def test_bad_input_is_named_and_nothing_is_written(admin, team, body, field, words):
    before = (User.objects.count(), AuditEntry.objects.count())
    response = api_as(admin).post("/api/v1/users/", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field
    assert words in response.json()["detail"]
    assert (User.objects.count(), AuditEntry.objects.count()) == before


def test_with_oidc_users_are_not_created_here(admin, settings):
    settings.QM_OIDC_ENABLED = True
    response = api_as(admin).post("/api/v1/users/", CAROL, format="json")
    assert response.status_code == 409
    assert response.json()["code"] == "local_accounts_off"
    assert "first sign-in" in response.json()["detail"]
    assert not User.objects.filter(username="carol").exists()


def test_only_admins_create_users(lead):
    response = api_as(lead).post("/api/v1/users/", CAROL, format="json")
    assert response.status_code == 403
    assert not User.objects.filter(username="carol").exists()
