"""Who sees and changes which notebook: owner, team lead, teammate, other team, launcher, admin."""

import pytest

from apps.queues.models import AuditEntry
from testkit.clients import api_as, token_client
from testkit.notebooks import notebook_body

URL = "/api/v1/notebooks/"


@pytest.fixture
def notebook(scientist, pool):
    return api_as(scientist).post(URL, notebook_body(), format="json").json()


@pytest.fixture
def teammate(team, admin):
    from apps.queues import services
    from core.roles import TeamRole
    from testkit.factories import UserFactory

    user = UserFactory(username="teammate")
    services.add_membership(team=team, user=user, role=TeamRole.SCIENTIST, actor=admin)
    return user


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "sees"),
    [
        ("scientist", True),
        ("lead", True),
        ("admin", True),
        ("teammate", False),
        ("other_lead", False),
    ],
)
def test_visibility(request, notebook, who, sees):
    client = api_as(request.getfixturevalue(who))
    detail = client.get(f"{URL}{notebook['id']}/")
    assert detail.status_code == (200 if sees else 404)
    ids = [n["id"] for n in client.get(URL).json()["results"]]
    assert (notebook["id"] in ids) is sees


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "status"), [("scientist", 204), ("lead", 204), ("admin", 204), ("other_lead", 404)]
)
def test_who_may_stop_it(request, notebook, who, status):
    response = api_as(request.getfixturevalue(who)).delete(f"{URL}{notebook['id']}/")
    assert response.status_code == status


@pytest.mark.django_db
def test_a_launcher_acts_for_a_member_and_it_is_audited(launcher, scientist):
    client = token_client(launcher["raw"])
    response = client.post(URL, notebook_body(user="scientist"), format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["owner"] == "scientist"
    assert response.json()["requested_by"] == "jupyterhub"
    entry = AuditEntry.objects.get(object_type="notebook")
    assert entry.actor_name == "jupyterhub"
    assert "for scientist" in entry.reason
    assert client.get(f"{URL}{response.json()['id']}/").status_code == 200
    assert client.delete(f"{URL}{response.json()['id']}/").status_code == 204


@pytest.mark.django_db
def test_a_plain_token_acts_only_for_its_user(scientist, pool):
    from apps.accounts.services import issue_api_token

    _, raw = issue_api_token(scientist, "laptop", actor=scientist)
    client = token_client(raw)
    assert client.post(URL, notebook_body(), format="json").status_code == 201
    response = client.post(URL, notebook_body(user="lead"), format="json")
    assert response.json()["code"] == "launcher_not_allowed"


@pytest.mark.django_db
def test_anonymous_gets_nothing(pool, api):
    assert api.get(URL).status_code in (401, 403)


@pytest.mark.django_db
def test_the_list_costs_a_fixed_number_of_queries(scientist, pool, django_assert_max_num_queries):
    client = api_as(scientist)
    client.post(URL, notebook_body(), format="json")
    client.post(URL, notebook_body(), format="json")
    with django_assert_max_num_queries(6):
        assert client.get(URL).json()["count"] == 2
