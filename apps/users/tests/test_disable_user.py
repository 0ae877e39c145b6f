"""Disabling a user ends their sign-in, API tokens and sessions; re-enabling restores
sign-in and the tokens that were neither revoked nor expired."""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.models import Session
from django.test import Client
from rest_framework.test import APIClient

from apps.accounts.services import issue_api_token
from apps.queues.models import AuditEntry
from testkit.clients import api_as
from testkit.factories import UserFactory, make_admin

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-passphrase-of-the-scientist"


def _token_client(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return client


def test_a_disabled_users_token_gets_401_and_works_again_on_re_enable(admin, scientist):
    _, raw = issue_api_token(scientist, "laptop", actor=scientist)
    assert _token_client(raw).get("/api/v1/teams/").status_code == 200
    response = api_as(admin).post("/api/v1/users/scientist/disable/", {}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["is_active"] is False
    assert _token_client(raw).get("/api/v1/teams/").status_code == 401
    api_as(admin).post("/api/v1/users/scientist/enable/", {}, format="json")
    assert _token_client(raw).get("/api/v1/teams/").status_code == 200


def test_a_disabled_user_cannot_sign_in_and_their_sessions_end(admin, scientist):
    scientist.set_password(PASSWORD)
    scientist.save()
    browser = Client()
    assert browser.login(username="scientist", password=PASSWORD)
    assert browser.get("/tokens/").status_code == 200
    api_as(admin).post("/api/v1/users/scientist/disable/", {}, format="json")
    assert browser.get("/tokens/").status_code == 302  # the session is gone: sign in again
    assert not Client().login(username="scientist", password=PASSWORD)
    api_as(admin).post("/api/v1/users/scientist/enable/", {}, format="json")
    assert Client().login(username="scientist", password=PASSWORD)


def test_each_change_is_audited_once(admin, scientist):
    for _ in range(2):  # the second time changes and records nothing
        api_as(admin).post("/api/v1/users/scientist/disable/", {}, format="json")
    api_as(admin).post("/api/v1/users/scientist/enable/", {"reason": "back"}, format="json")
    rows = AuditEntry.objects.filter(object_type="user", object_id=str(scientist.pk))
    reasons = list(rows.filter(action="update").order_by("pk").values_list("reason", flat=True))
    assert reasons == ["disabled (0 session(s) ended)", "back"]


def test_the_last_active_admin_cannot_be_disabled(admin):
    response = api_as(admin).post(f"/api/v1/users/{admin.username}/disable/", {}, format="json")
    assert response.status_code == 409
    assert response.json()["code"] == "last_admin"
    assert response.json()["field"] == "user"
    admin.refresh_from_db()
    assert admin.is_active


def test_an_admin_can_be_disabled_while_another_is_active(admin):
    second = make_admin("second")
    response = api_as(second).post(f"/api/v1/users/{admin.username}/disable/", {}, format="json")
    assert response.status_code == 200
    # A disabled admin does not count: now `second` is the last one.
    refused = api_as(second).post("/api/v1/users/second/disable/", {}, format="json")
    assert refused.json()["code"] == "last_admin"


def test_the_page_refuses_the_last_admin_with_the_reason(admin, client):
    client.force_login(admin)
    response = client.post(f"/administration/users/{admin.pk}/disable/", follow=True)
    assert "last active platform admin" in response.content.decode()


def test_only_admins_disable(lead, scientist):
    assert api_as(lead).post("/api/v1/users/lead/disable/", {}, format="json").status_code == 403
    # Someone else is not even visible to a non-admin.
    response = api_as(lead).post("/api/v1/users/scientist/disable/", {}, format="json")
    assert response.status_code == 404
    scientist.refresh_from_db()
    assert scientist.is_active


def test_only_the_disabled_users_sessions_end(admin):
    outsider = UserFactory(username="outsider")
    theirs, mine = Client(), Client()
    theirs.force_login(outsider)
    mine.force_login(admin)
    assert _sessions_of(outsider) == 1
    api_as(admin).post("/api/v1/users/outsider/disable/", {}, format="json")
    assert _sessions_of(outsider) == 0  # deleted, not merely refused at the next request
    assert mine.get("/administration/users/").status_code == 200


def _sessions_of(user) -> int:
    return sum(
        1
        for session in Session.objects.all()
        if session.get_decoded().get(SESSION_KEY) == str(user.pk)
    )
