"""No team is given a system namespace (kube-*, default, the portal's own); adopting an
existing namespace is an admin's audited act."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from apps.queues import services
from apps.queues.models import AuditEntry, Team, TeamNamespace
from core.errors import InvalidInput, NotAllowed

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "name", ["kube-system", "kube-public", "kube-node-lease", "default", "quartermaster"]
)
def test_a_team_cannot_be_given_a_system_namespace(catalog, name):
    audited = AuditEntry.objects.count()
    with pytest.raises(InvalidInput) as refused:
        services.create_team(
            slug="ops", display_name="Ops", namespaces=["team-ops", name], actor=catalog
        )
    assert refused.value.field == "namespaces[1]"
    (message,) = refused.value.errors["namespaces[1]"]
    assert f"{name!r} is a system namespace" in message
    assert "kube-*" in message and "e.g. 'team-vision'" in message
    assert not Team.objects.filter(slug="ops").exists()
    assert not TeamNamespace.objects.filter(name="team-ops").exists()
    assert AuditEntry.objects.count() == audited


def test_the_deny_list_is_the_setting_plus_the_portals_own_namespace(catalog, settings):
    settings.QM_PROTECTED_NAMESPACES = ["ops-*"]
    settings.QM_PORTAL_NAMESPACE = "gpu-portal"
    for index, name in enumerate(["ops-tools", "gpu-portal"]):
        with pytest.raises(InvalidInput) as refused:
            services.create_team(
                slug=f"t{index}", display_name="T", namespaces=[name], actor=catalog
            )
        assert refused.value.field == "namespaces[0]"
    team = services.create_team(slug="t", display_name="T", namespaces=["default"], actor=catalog)
    assert list(team.namespaces.values_list("name", flat=True)) == ["default"]


def test_the_api_names_the_field_and_the_rule(api, catalog):
    api.force_authenticate(catalog)
    body = {"slug": "ops", "display_name": "Ops", "namespaces": ["kube-system"]}
    response = api.post("/api/v1/teams/", body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert response.json()["field"] == "namespaces[0]"
    assert "system namespace" in response.json()["detail"]


def test_the_team_page_refuses_a_system_namespace(client, catalog):
    client.force_login(catalog)
    form = {"slug": "ops", "display_name": "Ops", "namespaces": "default"}
    response = client.post("/administration/teams/", form)
    assert response.status_code == 400
    assert "is a system namespace" in response.content.decode().replace("&#x27;", "'")
    assert not Team.objects.filter(slug="ops").exists()


def test_adopting_a_namespace_is_audited_once_with_its_reason(team, admin):
    services.adopt_namespace(namespace="team-vision", actor=admin, reason="made by hand")
    services.adopt_namespace(namespace="team-vision", actor=admin, reason="again")
    assert TeamNamespace.objects.get(name="team-vision").adopted_at is not None
    (entry,) = AuditEntry.objects.filter(object_type="teamnamespace")
    assert (entry.reason, entry.actor_name, entry.team) == ("made by hand", "root", team)


@pytest.mark.parametrize(
    ("name", "reason", "field"),
    [
        ("team-nowhere", "why", "namespace"),
        ("", "why", "namespace"),
        ("team-vision", " ", "reason"),
    ],
)
def test_adopting_needs_a_team_namespace_and_a_reason(team, admin, name, reason, field):
    with pytest.raises(InvalidInput) as refused:
        services.adopt_namespace(namespace=name, actor=admin, reason=reason)
    assert refused.value.field == field
    assert TeamNamespace.objects.get(name="team-vision").adopted_at is None


def test_a_legacy_row_on_a_system_namespace_cannot_be_adopted(team, admin):
    TeamNamespace.objects.create(team=team, name="kube-system")  # saved before the deny-list
    with pytest.raises(InvalidInput) as refused:
        services.adopt_namespace(namespace="kube-system", actor=admin, reason="please")
    assert refused.value.field == "namespace"
    assert TeamNamespace.objects.get(name="kube-system").adopted_at is None


def test_only_platform_admins_adopt(team, lead):
    with pytest.raises(NotAllowed):
        services.adopt_namespace(namespace="team-vision", actor=lead, reason="mine")


def test_the_adopt_command_names_what_is_wrong(team, admin):
    out = io.StringIO()
    call_command("adopt_namespace", "team-vision", "--reason", "made by hand", stdout=out)
    assert "adopted team-vision" in out.getvalue()
    with pytest.raises(CommandError, match="no team has the namespace 'team-x'"):
        call_command("adopt_namespace", "team-x", "--reason", "why")
