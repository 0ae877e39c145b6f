"""Administration pages for teams and members: every form goes through the catalog
services, a bad input names its field and writes nothing, only platform admins get in."""

from html import unescape

import pytest

from apps.queues.models import AuditEntry, Membership, Team
from core.audit import AuditAction
from core.roles import TeamRole
from testkit.factories import UserFactory


def text(response) -> str:
    return unescape(response.content.decode())


def test_admin_creates_a_team(client, catalog):
    client.force_login(catalog)
    form = {"slug": "speech", "display_name": "Speech", "cost_center": "cc-42"}
    response = client.post("/administration/teams/", form)
    assert response.status_code == 302 and response["Location"] == "/administration/teams/speech/"
    team = Team.objects.get(slug="speech")
    assert team.display_name == "Speech" and team.cost_center == "cc-42"
    assert list(team.namespaces.values_list("name", flat=True)) == ["team-speech"]
    entry = AuditEntry.objects.get(object_type="team", object_id=str(team.pk))
    assert entry.action == AuditAction.CREATE and entry.actor_name == "root"


def test_a_bad_slug_is_named_and_nothing_is_written(client, catalog):
    client.force_login(catalog)
    before = AuditEntry.objects.count()
    response = client.post("/administration/teams/", {"slug": "Bad_Slug", "display_name": "B"})
    assert response.status_code == 400
    assert "Slug: must be a DNS-1123 label" in text(response)
    assert not Team.objects.filter(slug="Bad_Slug").exists()
    assert AuditEntry.objects.count() == before


def test_a_namespace_of_another_team_is_refused(client, team, admin):
    client.force_login(admin)
    form = {"slug": "speech", "display_name": "Speech", "namespaces": "team-vision"}
    response = client.post("/administration/teams/", form)
    assert response.status_code == 400
    assert "Namespaces: namespace 'team-vision' already belongs to another team" in text(response)
    assert not Team.objects.filter(slug="speech").exists()


def test_admin_renames_a_team(client, team, admin):
    client.force_login(admin)
    response = client.post("/administration/teams/vision/", {"display_name": "Computer Vision"})
    assert response.status_code == 302
    assert Team.objects.get(pk=team.pk).display_name == "Computer Vision"
    entry = AuditEntry.objects.filter(object_type="team", action=AuditAction.UPDATE).get()
    assert entry.changes == [
        {"field": "display_name", "before": "Vision", "after": "Computer Vision"}
    ]


def test_an_empty_display_name_is_refused(client, team, admin):
    client.force_login(admin)
    response = client.post("/administration/teams/vision/", {"display_name": "  "})
    assert response.status_code == 400
    assert "Display name: This field is required." in text(response)
    assert Team.objects.get(pk=team.pk).display_name == "Vision"


def test_admin_adds_a_member_who_then_sees_the_team(client, team, admin):
    newcomer = UserFactory(username="newcomer")
    client.force_login(admin)
    form = {"username": "newcomer", "role": TeamRole.SCIENTIST}
    response = client.post("/administration/teams/vision/members/add/", form)
    assert response.status_code == 302
    assert Membership.objects.get(team=team, user=newcomer).role == TeamRole.SCIENTIST
    entry = AuditEntry.objects.filter(object_type="membership").latest("pk")
    assert entry.action == AuditAction.CREATE and entry.after["user"] == "newcomer"
    client.force_login(newcomer)
    assert 'href="/teams/vision/"' in client.get("/").content.decode()


def test_an_unknown_username_is_named_and_nothing_is_written(client, team, admin):
    client.force_login(admin)
    before = Membership.objects.count()
    form = {"username": "ghost", "role": TeamRole.LEAD}
    response = client.post("/administration/teams/vision/members/add/", form)
    assert response.status_code == 400
    assert "Username: no active user named 'ghost'" in text(response)
    assert Membership.objects.count() == before


def test_admin_changes_a_role(client, team, admin, scientist):
    client.force_login(admin)
    url = f"/administration/teams/vision/members/{scientist.pk}/role/"
    assert client.post(url, {"role": TeamRole.LEAD}).status_code == 302
    assert Membership.objects.get(team=team, user=scientist).role == TeamRole.LEAD
    entry = AuditEntry.objects.filter(object_type="membership").latest("pk")
    assert entry.changes == [{"field": "role", "before": "scientist", "after": "lead"}]


def test_an_unknown_role_is_refused(client, team, admin, scientist):
    client.force_login(admin)
    url = f"/administration/teams/vision/members/{scientist.pk}/role/"
    response = client.post(url, {"role": "owner"})
    assert response.status_code == 400
    assert "role: Select a valid choice. owner is not one of the available choices." in text(
        response
    )
    assert Membership.objects.get(team=team, user=scientist).role == TeamRole.SCIENTIST


def test_admin_removes_a_member(client, team, admin, scientist):
    client.force_login(admin)
    url = f"/administration/teams/vision/members/{scientist.pk}/remove/"
    assert client.post(url).status_code == 302
    assert not Membership.objects.filter(team=team, user=scientist).exists()
    entry = AuditEntry.objects.filter(object_type="membership").latest("pk")
    assert entry.action == AuditAction.DELETE and entry.before["user"] == "scientist"


def test_removing_someone_who_is_not_a_member_writes_nothing(client, team, admin):
    stranger = UserFactory(username="stranger")
    client.force_login(admin)
    before = AuditEntry.objects.count()
    response = client.post(f"/administration/teams/vision/members/{stranger.pk}/remove/")
    assert response.status_code == 400
    assert "user: stranger is not a member of vision" in text(response)
    assert AuditEntry.objects.count() == before


@pytest.mark.parametrize("persona", ["lead", "scientist", "other_lead"])
def test_no_one_but_a_platform_admin_gets_in(client, team, admin, persona, request):
    user = request.getfixturevalue(persona)
    scientist = request.getfixturevalue("scientist")
    client.force_login(user)
    before = (AuditEntry.objects.count(), Membership.objects.count())
    assert client.get("/administration/").status_code == 403
    assert client.get("/administration/teams/vision/").status_code == 403
    posts = {
        "/administration/teams/": {"slug": "x", "display_name": "X"},
        "/administration/teams/vision/": {"display_name": "Mine"},
        "/administration/teams/vision/members/add/": {"username": user.username, "role": "lead"},
        f"/administration/teams/vision/members/{scientist.pk}/remove/": {},
    }
    for url, form in posts.items():
        assert client.post(url, form).status_code == 403, url
    assert (AuditEntry.objects.count(), Membership.objects.count()) == before
    assert "Administration" not in client.get("/").content.decode()


def test_the_team_page_links_admins_to_its_administration(client, team, admin, lead):
    client.force_login(admin)
    assert 'href="/administration/teams/vision/"' in client.get("/teams/vision/").content.decode()
    client.force_login(lead)
    assert "/administration/" not in client.get("/teams/vision/").content.decode()


def test_a_team_may_be_called_new(client, catalog):
    # Create forms live on the collection URL, so no slug collides with them.
    client.force_login(catalog)
    assert (
        client.post("/administration/teams/", {"slug": "new", "display_name": "N"}).status_code
        == 302
    )
    assert client.get("/administration/teams/new/").context["team"].slug == "new"
