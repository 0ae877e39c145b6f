"""Members and roles over the API: add by username, change a role, remove; team names."""

from apps.queues.models import AuditEntry, Membership, Team
from core.audit import AuditAction
from core.roles import TeamRole
from testkit.clients import api_as
from testkit.factories import UserFactory


def test_admin_adds_changes_and_removes_a_member(team, admin):
    UserFactory(username="newcomer")
    api = api_as(admin)
    response = api.post(
        "/api/v1/teams/vision/members/",
        {"username": "newcomer", "role": "scientist"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json() == {"username": "newcomer", "role": "scientist"}
    url = "/api/v1/teams/vision/members/newcomer/"
    response = api.put(url, {"role": "lead"}, format="json")
    assert response.status_code == 200 and response.json()["role"] == "lead"
    assert Membership.objects.get(team=team, user__username="newcomer").role == TeamRole.LEAD
    assert api.delete(url).status_code == 204
    assert not Membership.objects.filter(team=team, user__username="newcomer").exists()
    actions = AuditEntry.objects.filter(object_type="membership").order_by("pk")
    assert [e.action for e in actions] == [
        AuditAction.CREATE,
        AuditAction.UPDATE,
        AuditAction.DELETE,
    ]


def test_an_unknown_username_is_a_400_naming_the_field(team, admin):
    response = api_as(admin).post(
        "/api/v1/teams/vision/members/", {"username": "ghost", "role": "lead"}, format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == "username" and "ghost" in body["detail"] and body["code"]
    assert not Membership.objects.exists()


def test_a_bad_role_and_an_unknown_field_are_400s(team, admin, scientist):
    api = api_as(admin)
    url = "/api/v1/teams/vision/members/scientist/"
    bad_role = api.put(url, {"role": "owner"}, format="json")
    assert bad_role.status_code == 400 and bad_role.json()["field"] == "role"
    unknown = api.put(url, {"role": "lead", "admin": True}, format="json")
    assert unknown.status_code == 400 and unknown.json()["field"] == "admin"
    assert Membership.objects.get(user=scientist).role == TeamRole.SCIENTIST


def test_someone_who_is_not_a_member_is_404(team, admin):
    UserFactory(username="stranger")
    api = api_as(admin)
    assert api.delete("/api/v1/teams/vision/members/stranger/").status_code == 404
    assert api.put("/api/v1/teams/vision/members/nobody/", {"role": "lead"}).status_code == 404


def test_admin_renames_a_team_over_the_api(team, admin):
    response = api_as(admin).patch(
        "/api/v1/teams/vision/", {"display_name": "Computer Vision"}, format="json"
    )
    assert response.status_code == 200 and response.json()["display_name"] == "Computer Vision"
    assert Team.objects.get(pk=team.pk).display_name == "Computer Vision"
    too_long = api_as(admin).patch("/api/v1/teams/vision/", {"display_name": "x" * 201})
    assert too_long.status_code == 400 and too_long.json()["field"] == "display_name"


def test_a_lead_may_not_manage_members(team, lead, scientist):
    api = api_as(lead)
    add = api.post("/api/v1/teams/vision/members/", {"username": "lead", "role": "lead"})
    assert add.status_code == 403
    assert api.delete("/api/v1/teams/vision/members/scientist/").status_code == 403
    assert api.patch("/api/v1/teams/vision/", {"display_name": "Mine"}).status_code == 403
    assert Membership.objects.filter(team=team).count() == 2


def test_unknown_fields_are_refused_and_nothing_is_written(team, admin):
    UserFactory(username="newcomer")
    api = api_as(admin)
    add = {"username": "newcomer", "role": "lead", "is_platform_admin": True}
    response = api.post("/api/v1/teams/vision/members/", add, format="json")
    assert response.status_code == 400 and response.json()["code"] == "unknown_field"
    rename = api.patch("/api/v1/teams/vision/", {"slug": "other"}, format="json")
    assert rename.status_code == 400 and rename.json()["field"] == "slug"
    assert not Membership.objects.exists()
    assert Team.objects.get(pk=team.pk).slug == "vision"
