"""Each rule rejects bad input with the field and the rule named, and writes nothing."""

import pytest

from apps.queues.models import AuditEntry, QuotaEntry
from core.errors import InvalidInput
from testkit.factories import quota, set_policy, snapshot

CASES = [
    (
        "bad quantity",
        {"quotas": [quota(nominal="eight")]},
        "quotas[0].nominal",
        "Kubernetes quantity",
    ),
    ("negative nominal", {"quotas": [quota(nominal="-1")]}, "quotas[0].nominal", "negative"),
    (
        "negative borrowing",
        {"quotas": [quota(borrowing_limit="-2")]},
        "quotas[0].borrowing_limit",
        "negative",
    ),
    (
        "lending above nominal",
        {"quotas": [quota(nominal="4", lending_limit="5")]},
        "quotas[0].lending_limit",
        "must not exceed the nominal quota (4)",
    ),
    (
        "borrowing outside cohort",
        {"cohort": None, "quotas": [quota(borrowing_limit="4")]},
        "quotas[0].borrowing_limit",
        "only be set when the queue is in a cohort",
    ),
    (
        "lending outside cohort",
        {"cohort": None, "quotas": [quota(lending_limit="4")]},
        "quotas[0].lending_limit",
        "only be set when the queue is in a cohort",
    ),
    ("unknown flavor", {"quotas": [quota(flavor="tpu-v5")]}, "quotas[0].flavor", "does not exist"),
    (
        "unknown resource",
        {"quotas": [quota(resource="amd.com/gpu")]},
        "quotas[0].resource",
        "has no",
    ),
    ("duplicate entry", {"quotas": [quota(), quota()]}, "quotas[1]", "listed twice"),
    (
        "over capacity",
        {"quotas": [quota(nominal="65")]},
        "quotas[0].nominal",
        "above the physical capacity of 64",
    ),
    ("unknown cohort", {"cohort": "nope"}, "cohort", "does not exist"),
    ("bad weight", {"fair_weight": "heavy"}, "fair_weight", "Kubernetes quantity"),
    ("tiny weight", {"fair_weight": "1n"}, "fair_weight", "greater than 1e-9"),
    ("bad strategy", {"queueing_strategy": "LIFO"}, "queueing_strategy", "must be one of"),
    (
        "borrow without reclaim",
        {"preemption": {"reclaim_within_cohort": "Never", "borrow_within_cohort": "LowerPriority"}},
        "preemption.borrow_within_cohort",
        "must be Never when reclaim_within_cohort is Never",
    ),
    (
        "threshold without borrow policy",
        {"preemption": {"borrow_max_priority_threshold": 5}},
        "preemption.borrow_max_priority_threshold",
        "only be set when borrow_within_cohort",
    ),
]


@pytest.mark.parametrize(("label", "proposal", "field", "rule"), CASES, ids=[c[0] for c in CASES])
def test_it_rejects_and_writes_nothing(queue, admin, label, proposal, field, rule):
    before, audit_rows, quota_rows = (
        snapshot(queue),
        AuditEntry.objects.count(),
        QuotaEntry.objects.count(),
    )
    proposal = {"cohort": "research", **proposal}
    with pytest.raises(InvalidInput) as caught:
        set_policy(queue, admin, **proposal)
    assert field in caught.value.errors, caught.value.errors
    assert any(rule in message for message in caught.value.errors[field])
    assert snapshot(queue) == before
    assert AuditEntry.objects.count() == audit_rows
    assert QuotaEntry.objects.count() == quota_rows


def test_capacity_counts_every_queue_on_the_flavor(queue, other_queue, admin):
    # vision holds 16 and nlp 16 of 64 h100: vision may go to 48 but not 49.
    set_policy(queue, admin, quotas=[quota("h100", "48")])
    with pytest.raises(InvalidInput) as caught:
        set_policy(queue, admin, quotas=[quota("h100", "49")])
    assert "would be 65" in caught.value.errors["quotas[0].nominal"][0]


def test_admin_override_of_capacity_is_audited(queue, admin):
    set_policy(
        queue, admin, quotas=[quota("h100", "80")], capacity_override_reason="vendor loaner nodes"
    )
    assert snapshot(queue)["quotas"][0]["nominal"] == "80"
    override = AuditEntry.objects.get(action="capacity_override")
    assert override.reason == "vendor loaner nodes"
    assert "above the physical capacity of 64" in override.changes[0]["after"][0]


def test_lead_cannot_override_capacity(queue, lead, envelope):
    with pytest.raises(InvalidInput):
        set_policy(queue, lead, quotas=[quota("h100", "70")], capacity_override_reason="please")


def test_api_names_the_field_and_writes_nothing(queue, admin):
    from testkit.clients import api_as

    before = snapshot(queue)
    body = {"version": before["version"], "quotas": [quota(nominal="4", lending_limit="6")]}
    response = api_as(admin).put(f"/api/v1/queues/{queue.pk}/", body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "quotas[0].lending_limit": [
            "must not exceed the nominal quota (4) (Kueue rule: lendingLimit ≤ nominalQuota), "
            "e.g. 4"
        ]
    }
    assert snapshot(queue) == before
