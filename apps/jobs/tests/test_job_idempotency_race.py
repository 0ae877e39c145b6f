"""Twenty simultaneous submissions with one Idempotency-Key make one job: the others
are answered with that job (replayed), never with an IntegrityError 500."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from apps.jobs.models import BatchJob
from apps.jobs.tests.test_jobs_api import BODY, URL
from testkit.clients import api_as

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]
CALLS = 20


def _race(user, bodies: list[dict], key: str) -> list:
    start = threading.Barrier(len(bodies))

    def submit(body):
        try:
            start.wait()
            return api_as(user).post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY=key)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(bodies)) as pool:
        return list(pool.map(submit, bodies))


@pytest.fixture
def unthrottled(settings):
    settings.API_RATE_USER = "100000/min"


def test_it_makes_one_job_from_twenty_racing_retries(scientist, queue, template, unthrottled):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises writers")
    responses = _race(scientist, [BODY] * CALLS, "train-1")
    assert sorted({r.status_code for r in responses}) == [201]
    assert len({r.json()["id"] for r in responses}) == 1
    assert sum(r.get("Idempotent-Replayed") == "true" for r in responses) == CALLS - 1
    assert BatchJob.objects.count() == 1


def test_it_refuses_a_racing_different_body_with_422(scientist, queue, template, unthrottled):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises writers")
    bodies = [BODY if i % 2 else {**BODY, "pods": 1} for i in range(CALLS)]
    responses = _race(scientist, bodies, "train-2")
    assert {r.status_code for r in responses} <= {201, 422}
    assert all(
        r.json()["code"] == "idempotency_key_reused" for r in responses if r.status_code == 422
    )
    assert BatchJob.objects.count() == 1
