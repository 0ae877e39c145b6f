"""Settings that take from other teams (reclaimWithinCohort, borrowWithinCohort and its
maxPriorityThreshold, a lower lendingLimit) are the admin's: a lead who raises them files
a change request naming the setting, and nothing is applied; an admin's edit applies.
Lowering them, or the lead's own withinClusterQueue, applies at once."""

import pytest

from apps.queues.models import AuditEntry, ChangeRequest
from testkit.clients import api_as
from testkit.factories import quota, set_policy, snapshot

NEVER = {
    "reclaim_within_cohort": "Never",
    "within_cluster_queue": "Never",
    "borrow_within_cohort": "Never",
    "borrow_max_priority_threshold": None,
}
QUOTAS = [quota("h100", "16"), quota("a100", "8")]


def _preemption(**changes):
    return {**NEVER, **changes}


RAISES = {
    "reclaim LowerPriority": (
        {},
        _preemption(reclaim_within_cohort="LowerPriority"),
        "reclaimWithinCohort LowerPriority (now Never) preempts more of other teams' "
        "workloads: only a platform admin may raise it",
    ),
    "reclaim Any over LowerPriority": (
        _preemption(reclaim_within_cohort="LowerPriority"),
        _preemption(reclaim_within_cohort="Any"),
        "reclaimWithinCohort Any (now LowerPriority) preempts more of other teams' "
        "workloads: only a platform admin may raise it",
    ),
    "borrow with a higher threshold": (
        _preemption(
            reclaim_within_cohort="Any",
            borrow_within_cohort="LowerPriority",
            borrow_max_priority_threshold=100,
        ),
        _preemption(
            reclaim_within_cohort="Any",
            borrow_within_cohort="LowerPriority",
            borrow_max_priority_threshold=1000,
        ),
        "borrowWithinCohort LowerPriority with maxPriorityThreshold 1000 (now LowerPriority "
        "with maxPriorityThreshold 100) preempts other teams' workloads of higher priority: "
        "only a platform admin may raise it",
    ),
    "borrow without a threshold": (
        _preemption(reclaim_within_cohort="Any"),
        _preemption(reclaim_within_cohort="Any", borrow_within_cohort="LowerPriority"),
        "borrowWithinCohort LowerPriority with no maxPriorityThreshold (now Never) preempts "
        "other teams' workloads of higher priority: only a platform admin may raise it",
    ),
}


def _start(queue, admin, preemption):
    if preemption:
        assert set_policy(queue, admin, preemption=preemption).applied


@pytest.mark.parametrize("case", sorted(RAISES))
def test_a_lead_raising_preemption_files_a_request_and_nothing_applies(
    queue, lead, admin, envelope, case
):
    start, proposed, breach = RAISES[case]
    _start(queue, admin, start)
    before = snapshot(queue)
    outcome = set_policy(queue, lead, preemption=proposed, reason="we need it")
    assert outcome.change_request.beyond_envelope == [breach]
    assert snapshot(queue) == before
    assert AuditEntry.objects.filter(change_request=outcome.change_request).exists()


@pytest.mark.parametrize("case", sorted(RAISES))
def test_an_admin_raising_preemption_applies(queue, admin, case):
    start, proposed, _breach = RAISES[case]
    _start(queue, admin, start)
    outcome = set_policy(queue, admin, preemption=proposed)
    assert outcome.applied
    assert snapshot(queue)["preemption"] == proposed
    assert not ChangeRequest.objects.exists()


@pytest.mark.parametrize(
    ("start", "proposed"),
    [
        (_preemption(reclaim_within_cohort="Any"), _preemption(reclaim_within_cohort="Never")),
        (
            _preemption(
                reclaim_within_cohort="Any",
                borrow_within_cohort="LowerPriority",
                borrow_max_priority_threshold=1000,
            ),
            _preemption(
                reclaim_within_cohort="Any",
                borrow_within_cohort="LowerPriority",
                borrow_max_priority_threshold=10,
            ),
        ),
        ({}, _preemption(within_cluster_queue="LowerOrNewerEqualPriority")),
    ],
    ids=["reclaim lowered", "threshold lowered", "own queue only"],
)
def test_a_lead_lowering_preemption_or_choosing_within_the_queue_applies(
    queue, lead, admin, envelope, start, proposed
):
    _start(queue, admin, start)
    outcome = set_policy(queue, lead, preemption=proposed)
    assert outcome.applied
    assert snapshot(queue)["preemption"] == proposed


def test_a_lead_lending_less_files_a_request_and_nothing_applies(queue, lead, envelope):
    before = snapshot(queue)
    lend_nothing = [quota("h100", "16", lending_limit="0"), quota("a100", "8")]
    outcome = set_policy(queue, lead, quotas=lend_nothing)
    assert outcome.change_request.beyond_envelope == [
        "lending limit 0 for h100/nvidia.com/gpu is below the current unlimited: "
        "lending less to the cohort needs a platform admin"
    ]
    assert snapshot(queue) == before


def test_a_lead_lending_more_applies(queue, lead, admin, envelope):
    set_policy(queue, admin, quotas=[quota("h100", "16", lending_limit="4"), quota("a100", "8")])
    outcome = set_policy(
        queue, lead, quotas=[quota("h100", "16", lending_limit="8"), quota("a100", "8")]
    )
    assert outcome.applied
    assert snapshot(queue)["quotas"][0]["lending_limit"] == "8"


def test_an_admin_lending_nothing_applies(queue, admin):
    outcome = set_policy(
        queue, admin, quotas=[quota("h100", "16", lending_limit="0"), quota("a100", "8")]
    )
    assert outcome.applied
    assert snapshot(queue)["quotas"][0]["lending_limit"] == "0"


def test_the_lead_api_answers_202_with_the_breach_in_words(queue, lead, envelope):
    body = {
        "version": snapshot(queue)["version"],
        "preemption": _preemption(reclaim_within_cohort="Any"),
    }
    response = api_as(lead).put(f"/api/v1/queues/{queue.pk}/", body, format="json")
    assert response.status_code == 202, response.content
    assert response.json()["beyond_envelope"] == [
        "reclaimWithinCohort Any (now Never) preempts more of other teams' workloads: "
        "only a platform admin may raise it"
    ]
    assert snapshot(queue)["preemption"] == NEVER
