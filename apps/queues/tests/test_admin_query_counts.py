"""The administration pages cost a fixed number of queries, however many rows there are."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.queues import services
from core.roles import TeamRole
from testkit.factories import UserFactory, make_flavor, make_team


def grow(admin, team, count: int) -> None:
    for n in range(count):
        make_team(admin, f"t{n}")
        make_flavor(admin, f"f{n}", {"nvidia.com/gpu": "8", "cpu": "64"}, node_labels={"n": str(n)})
        services.save_cohort(name=f"c{n}", parent="research", actor=admin)
        services.save_priority_tier(name=f"p{n}", value=n, actor=admin)
        member = UserFactory(username=f"member{n}")
        services.add_membership(team=team, user=member, role=TeamRole.SCIENTIST, actor=admin)


@pytest.mark.parametrize(
    "url",
    [
        "/administration/",
        "/administration/teams/vision/",
        "/administration/teams/vision/envelope/",
        "/administration/flavors/h100/",
        "/administration/cohorts/research/",
    ],
)
def test_admin_pages_do_not_grow_with_rows(client, url, queue, envelope, admin):
    client.force_login(admin)
    with CaptureQueriesContext(connection) as small:
        assert client.get(url).status_code == 200
    grow(admin, queue.team, 5)
    with CaptureQueriesContext(connection) as large:
        assert client.get(url).status_code == 200
    assert len(large) == len(small), [q["sql"][:120] for q in large.captured_queries]
