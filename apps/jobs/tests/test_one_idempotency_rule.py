"""Jobs and notebooks follow one idempotency rule: a key is unique per requester
(``requested_by``, the owner or a launcher acting for them), whoever the row is for."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from apps.jobs.models import BatchJob, Notebook
from apps.jobs.services import (
    JobRequest,
    NotebookRequest,
    Principal,
    request_notebook,
    submit_job,
)
from testkit.notebooks import IMAGE

MODELS = {"job": BatchJob, "notebook": Notebook}
SPECS = {
    "job": JobRequest(template="pytorch-train", flavor="h100"),
    "notebook": NotebookRequest(image=IMAGE, flavor="h100"),
}
KINDS = ["job", "notebook"]


def submit(kind: str, owner, key: str, *, actor: Principal | None = None):
    actor = actor or Principal(owner)
    if kind == "job":
        return submit_job(owner, SPECS[kind], actor=actor, idempotency_key=key)
    return request_notebook(owner, SPECS[kind], actor=actor, idempotency_key=key)


@pytest.fixture
def ready(scientist, lead, queue, template, pool):
    """Both kinds may be submitted by the scientist and the lead of one team."""


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_the_same_key_from_the_same_requester_is_the_first_row(ready, scientist, kind):
    first = submit(kind, scientist, "k-1")
    again = submit(kind, scientist, "k-1")
    assert (first.replayed, again.replayed) == (False, True)
    assert again.record.pk == first.record.pk
    assert MODELS[kind].objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_another_requester_with_the_same_key_gets_a_new_row(ready, scientist, lead, kind):
    mine = submit(kind, scientist, "k-1")
    theirs = submit(kind, lead, "k-1")
    assert theirs.replayed is False
    assert theirs.record.pk != mine.record.pk
    assert theirs.record.requested_by == lead and mine.record.requested_by == scientist
    assert MODELS[kind].objects.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_a_launcher_is_the_requester_of_what_it_asks_for_someone(ready, scientist, launcher, kind):
    hub = Principal(launcher["user"], launcher["token"])
    first = submit(kind, scientist, "hub-1", actor=hub)
    again = submit(kind, scientist, "hub-1", actor=hub)
    mine = submit(kind, scientist, "hub-1")  # the owner's own key space is separate
    record = MODELS[kind].objects.get(pk=first.record.pk)
    assert (record.owner, record.requested_by) == (scientist, launcher["user"])
    assert record.via_token == launcher["token"]
    assert again.record.pk == first.record.pk and mine.record.pk != first.record.pk
    assert mine.record.via_token is None


CALLS = 12


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", KINDS)
def test_racing_requests_with_one_key_make_one_row(ready, scientist, kind):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises writers")
    start = threading.Barrier(CALLS)

    def race(_):
        try:
            start.wait()
            return submit(kind, scientist, "race-1").record.pk
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=CALLS) as threads:
        ids = list(threads.map(race, range(CALLS)))

    assert len(set(ids)) == 1
    assert MODELS[kind].objects.count() == 1
