"""Every error code of the notebook API, with its status and the field at fault."""

import pytest

from core.errors import CODES
from testkit.clients import api_as, token_client
from testkit.notebooks import notebook_body

URL = "/api/v1/notebooks/"


def post(client, **body):
    return client.post(URL, body, format="json")


@pytest.mark.django_db
def test_it_creates_a_notebook_in_the_team_namespace(scientist, pool):
    response = post(api_as(scientist), **notebook_body())
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["state"] == "requested"
    assert body["namespace"] == "team-vision"
    assert body["owner"] == "scientist"
    assert body["url"] is None  # only once ready


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"image": "docker.io/evil/miner:latest"}, "image_not_allowed", "image"),
        ({"flavor": "a100"}, "flavor_not_in_pool", "flavor"),
        ({"ttl_hours": 25}, "ttl_too_long", "ttl_hours"),
        ({"profile": "huge"}, "profile_not_found", "profile"),
        ({"gpus": 3}, "quota_exceeded", "gpus"),
        ({"gpus": 9}, "never_fits", "gpus"),
        ({"gpus": "two"}, "invalid", "gpus"),
        ({"team": "nlp"}, "not_a_member", "team"),
        ({"namespace": "kube-system"}, "namespace_not_allowed", "namespace"),
        ({"privileged": True}, "unknown_field", "privileged"),
        ({"user": "otherlead"}, "launcher_not_allowed", "user"),
    ],
)
def test_it_rejects_bad_requests_with_a_code(scientist, other_lead, pool, body, code, field):
    response = post(api_as(scientist), **notebook_body(**body))
    assert response.status_code == CODES[code][0], response.json()
    assert response.json()["code"] == code
    assert response.json()["field"] == field
    assert response.json()["detail"]


@pytest.mark.django_db
def test_a_third_notebook_exceeds_the_per_user_limit(scientist, pool):
    client = api_as(scientist)
    assert post(client, **notebook_body()).status_code == 201
    assert post(client, **notebook_body()).status_code == 201
    response = post(client, **notebook_body())
    assert response.status_code == 409
    assert response.json()["code"] == "quota_exceeded"


@pytest.mark.django_db
def test_the_pool_fills_up(pool, team, admin):
    from apps.jobs.models import PoolFlavor
    from apps.queues import services
    from core.roles import TeamRole
    from testkit.factories import UserFactory

    PoolFlavor.objects.filter(pool=pool).update(gpus=3)
    users = [UserFactory(username=f"u{i}") for i in range(2)]
    for user in users:
        services.add_membership(team=team, user=user, role=TeamRole.SCIENTIST, actor=admin)
    assert post(api_as(users[0]), **notebook_body(gpus=2)).status_code == 201
    response = post(api_as(users[1]), **notebook_body(gpus=2))
    assert response.status_code == 409
    assert response.json()["code"] == "pool_full"


@pytest.mark.django_db
def test_no_pool_no_notebooks(scientist, catalog):
    response = post(api_as(scientist), **notebook_body())
    assert response.json()["code"] == "pool_not_configured"


@pytest.mark.django_db
def test_a_user_in_two_teams_must_name_one(scientist, other_team, admin, pool):
    from apps.queues import services
    from core.roles import TeamRole

    services.add_membership(team=other_team, user=scientist, role=TeamRole.SCIENTIST, actor=admin)
    assert post(api_as(scientist), **notebook_body()).json()["code"] == "team_required"
    assert post(api_as(scientist), **notebook_body(team="nlp")).status_code == 201


@pytest.mark.django_db
def test_renewing_past_the_maximum_is_ttl_too_long(scientist, pool):
    client = api_as(scientist)
    notebook = post(client, **notebook_body()).json()
    response = client.post(f"{URL}{notebook['id']}/renew/", {"hours": 48}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "ttl_too_long"


@pytest.mark.django_db
def test_renewing_a_stopped_notebook_is_not_renewable(scientist, pool):
    client = api_as(scientist)
    notebook = post(client, **notebook_body()).json()
    assert client.delete(f"{URL}{notebook['id']}/").status_code == 204
    response = client.post(f"{URL}{notebook['id']}/renew/", {}, format="json")
    assert response.json()["code"] == "not_renewable"


@pytest.mark.django_db
def test_a_launcher_may_not_act_for_other_teams(launcher, other_lead):
    response = post(token_client(launcher["raw"]), **notebook_body(user="otherlead"))
    assert response.status_code == 403
    assert response.json()["code"] == "launcher_not_allowed"


@pytest.mark.django_db
def test_a_launcher_naming_an_unknown_user(launcher):
    response = post(token_client(launcher["raw"]), **notebook_body(user="nobody"))
    assert response.json()["code"] == "not_a_member"


@pytest.mark.django_db
def test_the_schema_documents_every_code(admin):
    response = api_as(admin).get("/api/schema/", {"format": "json"})
    schema = response.content.decode()
    for code in CODES:
        assert code in schema
