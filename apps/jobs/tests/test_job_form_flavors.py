"""The job form offers only the flavors the team's queue has GPU quota for."""

import pytest

from apps.jobs.models import BatchJob
from apps.queues.services import add_membership
from core.roles import TeamRole
from testkit.factories import make_flavor

pytestmark = pytest.mark.django_db


def _options(page: str) -> list[str]:
    select = page.split('name="flavor"', 1)[1].split("</select>", 1)[0]
    return [part.split('"', 1)[0] for part in select.split('<option value="')[1:]]


@pytest.fixture
def l4(catalog):
    # A flavor of the cluster that no queue has quota for.
    return make_flavor(catalog, "l4", {"nvidia.com/gpu": "8"})


def test_a_member_of_one_team_sees_its_queue_flavors_in_queue_order(client, scientist, queue, l4):
    client.force_login(scientist)
    page = client.get("/jobs/new/").content.decode()
    # vision's queue: h100 (16) then a100 (8); l4 exists but vision has no quota on it.
    assert _options(page) == ["h100", "a100"]
    assert "Only flavors your team" in page


def test_a_member_of_two_teams_sees_one_group_per_team(
    client, scientist, queue, other_queue, admin, l4
):
    add_membership(team=other_queue.team, user=scientist, role=TeamRole.SCIENTIST, actor=admin)
    client.force_login(scientist)
    page = client.get("/jobs/new/").content.decode()
    # nlp's queue has h100 only; groups are in team order (nlp, vision).
    assert '<optgroup label="nlp">' in page and '<optgroup label="vision">' in page
    assert _options(page) == ["h100", "h100", "a100"]


def test_a_flavor_without_quota_is_refused_by_the_form_and_nothing_is_written(
    client, scientist, queue, l4
):
    client.force_login(scientist)
    body = {"template": "pytorch-train", "flavor": "l4", "gpus_per_pod": 1, "pods": 1}
    response = client.post("/jobs/new/", {**body, "max_runtime_minutes": 60, "team": "vision"})
    assert response.status_code == 200
    assert "Select a valid choice. l4 is not one of the available choices." in (
        response.content.decode()
    )
    assert not BatchJob.objects.exists()
