"""Admins creating the same username at the same moment get one user and no 500: the
loser is told the name is taken."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from apps.accounts.models import User
from testkit.clients import api_as

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]
CALLS = 6


def test_racing_admins_create_one_user(admin, settings):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises writers")
    settings.API_RATE_USER = "100000/min"
    start = threading.Barrier(CALLS)

    def create(_):
        try:
            start.wait()
            return api_as(admin).post("/api/v1/users/", {"username": "carol"}, format="json")
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=CALLS) as pool:
        responses = list(pool.map(create, range(CALLS)))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [400] * (CALLS - 1), [r.content for r in responses]
    assert {r.json()["field"] for r in responses if r.status_code == 400} == {"username"}
    assert User.objects.filter(username="carol").count() == 1
