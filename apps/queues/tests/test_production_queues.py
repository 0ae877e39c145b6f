"""A production queue never borrows or lends; a policy edit cannot say otherwise or
make a queue production (docs/inference.md)."""

import pytest

from apps.queues.models import AuditEntry, Queue
from core.errors import InvalidInput
from testkit.factories import make_queue, make_team, quota, set_policy, snapshot


@pytest.fixture
def production(catalog):
    team = make_team(catalog, "serving")
    return make_queue(
        catalog,
        team,
        production=True,
        cohort="research",
        quotas=[quota("h100", "8", borrowing_limit="0", lending_limit="0")],
    )


@pytest.mark.parametrize("limit", ["borrowing_limit", "lending_limit"])
@pytest.mark.parametrize("value", [None, "2"])
def test_it_refuses_a_production_queue_that_borrows_or_lends(production, admin, limit, value):
    before, audit_rows = snapshot(production), AuditEntry.objects.count()
    limits = {"borrowing_limit": "0", "lending_limit": "0", limit: value}
    with pytest.raises(InvalidInput) as caught:
        set_policy(production, admin, quotas=[quota("h100", "8", **limits)])
    assert caught.value.errors == {
        f"quotas[0].{limit}": [
            "must be 0 in a production queue (it never borrows from or lends to its "
            "cohort, so batch cannot take its GPUs), e.g. 0"
        ]
    }
    assert snapshot(production) == before
    assert AuditEntry.objects.count() == audit_rows


def test_a_production_queue_outside_any_cohort_needs_no_limits(production, admin):
    # Outside a cohort there is nothing to borrow from or lend to.
    set_policy(production, admin, cohort=None, quotas=[quota("h100", "8")])
    assert snapshot(production)["cohort"] is None


def test_a_team_queue_keeps_borrowing(queue, admin):
    set_policy(queue, admin, cohort="research", quotas=[quota("h100", "16", borrowing_limit="4")])
    assert snapshot(queue)["production"] is False


def test_a_policy_edit_cannot_make_a_queue_production(queue, admin):
    with pytest.raises(InvalidInput) as caught:
        set_policy(queue, admin, production=True)
    assert "production" in caught.value.errors
    assert Queue.objects.get(pk=queue.pk).production is False
