"""The status poll is cached per notebook version: a state change shows at once, and a
reader who may not see the notebook gets 404 even while an entry is cached."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.jobs import services
from apps.jobs.models import Notebook
from apps.queues import services as queues_services
from testkit.clients import api_as
from testkit.notebooks import notebook_body

URL = "/api/v1/notebooks/"


@pytest.fixture
def notebook(scientist, pool):
    return api_as(scientist).post(URL, notebook_body(), format="json").json()


@pytest.mark.django_db
def test_it_shows_a_state_change_at_once(scientist, notebook):
    client = api_as(scientist)
    assert client.get(f"{URL}{notebook['id']}/").json()["state"] == notebook["state"]
    services.stop_notebook(
        Notebook.objects.get(pk=notebook["id"]), actor=services.Principal(user=scientist)
    )
    assert client.get(f"{URL}{notebook['id']}/").json()["state"] != notebook["state"]


@pytest.mark.django_db
def test_it_never_serves_a_cached_status_to_someone_who_may_not_see_it(
    scientist, other_lead, notebook
):
    assert api_as(scientist).get(f"{URL}{notebook['id']}/").status_code == 200
    assert api_as(other_lead).get(f"{URL}{notebook['id']}/").status_code == 404


@pytest.mark.django_db
def test_it_renders_the_same_body_from_the_cache(scientist, notebook):
    client = api_as(scientist)
    first = client.get(f"{URL}{notebook['id']}/").json()
    with CaptureQueriesContext(connection) as queries:
        again = client.get(f"{URL}{notebook['id']}/").json()
    assert again == first
    assert not any("jobs_notebookprofile" in q["sql"] for q in queries.captured_queries)


@pytest.mark.django_db
def test_readers_of_every_kind_get_their_own_answer_one_after_another(
    scientist, lead, other_lead, admin, notebook
):
    # One process, one compiled query per rule of visible_to, many readers in turn.
    detail = f"{URL}{notebook['id']}/"
    for reader, status in [
        (other_lead, 404),
        (scientist, 200),
        (admin, 200),
        (other_lead, 404),
        (lead, 200),
        (admin, 200),
    ]:
        assert api_as(reader).get(detail).status_code == status, reader.username


@pytest.mark.django_db
def test_a_new_lead_or_admin_sees_it_at_once(scientist, team, other_lead, admin, notebook):
    from apps.accounts.services import make_platform_admin
    from apps.queues.services.members import change_role
    from core.roles import TeamRole
    from testkit.factories import UserFactory

    detail = f"{URL}{notebook['id']}/"
    teammate = UserFactory(username="teammate")
    queues_services.add_membership(team=team, user=teammate, role=TeamRole.SCIENTIST, actor=admin)
    assert api_as(teammate).get(detail).status_code == 404
    change_role(team=team, user=teammate, role=TeamRole.LEAD, actor=admin)
    assert api_as(teammate).get(detail).status_code == 200

    assert api_as(other_lead).get(detail).status_code == 404
    promoted, _ = make_platform_admin(other_lead.username, password=None, actor=admin)
    assert api_as(promoted).get(detail).status_code == 200


@pytest.mark.django_db
def test_active_only_hides_an_ended_notebook(scientist, notebook):
    client = api_as(scientist)
    detail = f"{URL}{notebook['id']}/"
    assert client.get(detail, {"active": "1"}).status_code == 200
    services.stop_notebook(
        Notebook.objects.get(pk=notebook["id"]), actor=services.Principal(user=scientist)
    )
    assert client.get(detail, {"active": "true"}).status_code == 404
    assert client.get(detail).json()["state"] == "stopped"


@pytest.mark.django_db
@pytest.mark.parametrize("notebook_id", ["abc", "1.5", "-1", "0", "99999999999999999999"])
def test_an_id_that_can_match_nothing_is_404(scientist, notebook, notebook_id):
    response = api_as(scientist).get(f"{URL}{notebook_id}/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.django_db
def test_a_cached_poll_is_one_query(scientist, notebook, django_assert_num_queries):
    client = api_as(scientist)
    first = client.get(f"{URL}{notebook['id']}/").json()
    with django_assert_num_queries(1):
        assert client.get(f"{URL}{notebook['id']}/").json() == first
