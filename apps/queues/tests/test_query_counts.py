"""List endpoints and pages cost a fixed number of queries, however many rows there are."""

import pytest

from testkit.factories import make_queue, make_team, quota, set_policy

LISTS = [
    "/api/v1/teams/",
    "/api/v1/flavors/",
    "/api/v1/cohorts/",
    "/api/v1/priority-tiers/",
    "/api/v1/queues/",
    "/api/v1/change-requests/",
    "/api/v1/audit/",
]


def grow(admin, lead, count: int) -> None:
    for n in range(count):
        team = make_team(admin, f"t{n}-{count}")
        make_queue(admin, team, quotas=[quota("h100", "1"), quota("a100", "1")])


@pytest.mark.parametrize("url", LISTS)
def test_list_endpoints_do_not_grow_with_rows(url, catalog, queue, lead, envelope, admin):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from testkit.clients import api_as

    set_policy(queue, lead, quotas=[quota("h100", "40")])
    client = api_as(admin)
    with CaptureQueriesContext(connection) as small:
        client.get(url)
    grow(admin, lead, 6)
    with CaptureQueriesContext(connection) as large:
        assert client.get(url).status_code == 200
    assert len(large) == len(small), [q["sql"][:120] for q in large.captured_queries]
    assert len(large) <= 8


@pytest.mark.parametrize("url", ["/", "/teams/vision/", "/change-requests/", "/audit/"])
def test_pages_do_not_grow_with_rows(client, url, catalog, queue, admin):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(admin)
    with CaptureQueriesContext(connection) as small:
        client.get(url)
    grow(admin, None, 6)
    with CaptureQueriesContext(connection) as large:
        assert client.get(url).status_code == 200
    assert len(large) == len(small), [q["sql"][:120] for q in large.captured_queries]
