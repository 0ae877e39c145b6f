"""Admins issue launcher tokens and change their grants (page and command); nobody else."""

from io import StringIO

import pytest
from django.core.management import call_command

from apps.jobs.models import LauncherGrant
from apps.jobs.services import issue_launcher_token, set_launcher_teams
from apps.queues.models import AuditEntry
from core.errors import DomainError
from testkit.clients import token_client
from testkit.factories import UserFactory
from testkit.notebooks import notebook_body


@pytest.fixture
def hub(db):
    return UserFactory(username="jupyterhub")


def test_an_admin_creates_a_launcher_on_the_page_and_it_acts_for_the_team(
    client, admin, hub, team, scientist, pool
):
    client.force_login(admin)
    response = client.post(
        "/launchers/", {"user": "jupyterhub", "name": "hub", "days": "90", "teams": ["vision"]}
    )
    assert response.status_code == 201
    secret = response.context["secret"]
    grant = LauncherGrant.objects.get(token__user=hub)
    assert [t.slug for t in grant.teams.all()] == ["vision"]
    created = token_client(secret).post(
        "/api/v1/notebooks/", notebook_body(user="scientist"), format="json"
    )
    assert created.status_code == 201, created.content
    assert secret not in client.get("/launchers/").content.decode()


def test_a_grant_change_and_a_revocation_take_effect_at_once(
    client, admin, hub, team, other_team, scientist, pool
):
    grant, secret = issue_launcher_token(hub, "hub", ["nlp"], actor=admin, days=30)
    api = token_client(secret)
    body = notebook_body(user="scientist")
    assert api.post("/api/v1/notebooks/", body, format="json").status_code == 403
    client.force_login(admin)
    client.post(f"/launchers/{grant.pk}/teams/", {"teams": ["vision", "nlp"]})
    assert api.post("/api/v1/notebooks/", body, format="json").status_code == 201
    client.post(f"/launchers/{grant.pk}/revoke/")
    assert api.post("/api/v1/notebooks/", body, format="json").status_code == 401
    actions = AuditEntry.objects.filter(object_type="launchergrant").values_list(
        "action", flat=True
    )
    assert sorted(actions) == ["create", "update"]


def test_only_platform_admins_manage_launchers(client, lead, hub, team, admin):
    with pytest.raises(DomainError):
        issue_launcher_token(hub, "hub", ["vision"], actor=lead, days=30)
    grant, _ = issue_launcher_token(hub, "hub", ["vision"], actor=admin, days=30)
    with pytest.raises(DomainError):
        set_launcher_teams(grant, ["vision"], actor=lead)
    client.force_login(lead)
    assert client.get("/launchers/").status_code == 403
    assert client.post(f"/launchers/{grant.pk}/revoke/").status_code == 403


def test_bad_input_is_a_form_error_naming_the_field(client, admin, hub, team):
    client.force_login(admin)
    for body, field in (
        ({"user": "nobody", "name": "hub", "days": "30", "teams": ["vision"]}, "User"),
        ({"user": "jupyterhub", "name": "hub", "days": "999", "teams": ["vision"]}, "Expires"),
        ({"user": "jupyterhub", "name": "hub", "days": "30"}, "Teams"),
        ({"user": "jupyterhub", "name": "hub", "days": "30", "teams": ["nope"]}, "Teams"),
    ):
        response = client.post("/launchers/", body)
        assert response.status_code == 200
        assert f"{field}" in response.content.decode() and "errorlist" in response.content.decode()
    assert not LauncherGrant.objects.exists()


def test_create_launcher_token_command_prints_the_secret_once(hub, team, scientist, pool):
    out = StringIO()
    call_command(
        "create_launcher_token",
        *("--user", "jupyterhub", "--name", "hub", "--teams", "vision", "--days", "30"),
        stdout=out,
        stderr=StringIO(),
    )
    secret = out.getvalue().strip()
    grant = LauncherGrant.objects.get(token__user=hub)
    assert secret.startswith(grant.token.prefix)
    response = token_client(secret).post(
        "/api/v1/notebooks/", notebook_body(user="scientist"), format="json"
    )
    assert response.status_code == 201
