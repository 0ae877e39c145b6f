"""Limits hold under concurrency: 50 parallel creates can never exceed them."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook, PoolFlavor
from apps.jobs.services import NotebookRequest, Principal, request_notebook
from core.errors import DomainError
from testkit.notebooks import IMAGE

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def _parallel(calls: int, function) -> list:
    def run(i):
        try:
            return function(i)
        except DomainError as exc:
            return exc.code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=16) as pool:
        return list(pool.map(run, range(calls)))


def _skip_without_row_locks():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks")


def test_fifty_parallel_creates_for_one_user_stay_within_the_limits(scientist, pool):
    _skip_without_row_locks()
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)

    results = _parallel(
        50, lambda i: request_notebook(scientist, spec, actor=Principal(scientist)).record.pk
    )

    created = [r for r in results if isinstance(r, int)]
    assert len(created) == 2
    assert sorted(set(r for r in results if isinstance(r, str))) == ["quota_exceeded"]
    assert Notebook.objects.filter(owner=scientist, state=NotebookState.REQUESTED).count() == 2


def test_parallel_creates_of_many_users_never_overfill_the_pool(pool, team, admin):
    _skip_without_row_locks()
    from apps.queues import services
    from core.roles import TeamRole
    from testkit.factories import UserFactory

    PoolFlavor.objects.filter(pool=pool).update(gpus=5)
    users = [UserFactory(username=f"par{i}") for i in range(25)]
    for user in users:
        services.add_membership(team=team, user=user, role=TeamRole.SCIENTIST, actor=admin)
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)

    results = _parallel(
        50,
        lambda i: request_notebook(users[i % 25], spec, actor=Principal(users[i % 25])).record.pk,
    )

    assert len([r for r in results if isinstance(r, int)]) == 5
    assert set(r for r in results if isinstance(r, str)) <= {"pool_full", "quota_exceeded"}
    assert sum(Notebook.objects.active().values_list("gpus", flat=True)) == 5


def test_fifty_parallel_retries_with_one_key_make_one_notebook(scientist, pool):
    _skip_without_row_locks()
    spec = NotebookRequest(image=IMAGE, flavor="h100", gpus=1)

    results = _parallel(
        50,
        lambda i: (
            request_notebook(
                scientist, spec, actor=Principal(scientist), idempotency_key="launch-1"
            ).record.pk
        ),
    )

    assert len(set(results)) == 1
    assert Notebook.objects.count() == 1
