"""Admins adding the same person to a team at the same moment get one membership and
no 500: the losers of the race are answered with the membership the winner made."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from apps.queues.models import Membership
from testkit.clients import api_as
from testkit.factories import UserFactory

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]
CALLS = 12


def test_racing_admins_add_one_membership(catalog, team, settings):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises writers")
    settings.API_RATE_USER = "100000/min"
    UserFactory(username="newcomer")
    start = threading.Barrier(CALLS)

    def add(role):
        try:
            start.wait()
            body = {"username": "newcomer", "role": role}
            return api_as(catalog).post(f"/api/v1/teams/{team.slug}/members/", body, format="json")
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=CALLS) as pool:
        responses = list(pool.map(add, ["scientist"] * CALLS))
    assert sorted({r.status_code for r in responses}) == [201], [r.content for r in responses]
    assert Membership.objects.filter(team=team, user__username="newcomer").count() == 1
