"""A lead's edit inside the envelope applies; beyond it becomes a change request."""

import pytest

from apps.queues import services
from apps.queues.models import AuditEntry, ChangeRequest
from core.errors import InvalidInput, NotAllowed
from testkit.factories import quota, set_policy, snapshot


def test_an_edit_inside_the_envelope_applies_at_once(queue, lead, envelope):
    outcome = set_policy(
        queue, lead, quotas=[quota("h100", "24"), quota("a100", "8")], fair_weight="2"
    )
    assert outcome.applied and outcome.change_request is None
    assert snapshot(queue)["quotas"][0]["nominal"] == "24"


def test_an_edit_beyond_the_envelope_files_a_request_and_changes_nothing(queue, lead, envelope):
    before = snapshot(queue)
    outcome = set_policy(
        queue, lead, quotas=[quota("h100", "32"), quota("a100", "8")], reason="deadline"
    )
    request = outcome.change_request
    assert request.status == "pending"
    assert request.beyond_envelope == [
        "nominal quota 32 for h100/nvidia.com/gpu exceeds the envelope maximum of 24"
    ]
    assert snapshot(queue) == before
    assert AuditEntry.objects.filter(action="change_requested", change_request=request).exists()


def test_lowering_quota_never_needs_approval(queue, lead):
    outcome = set_policy(queue, lead, quotas=[quota("h100", "4"), quota("a100", "8")])
    assert outcome.applied


def test_weight_outside_range_and_admin_fields_need_approval(queue, lead, envelope):
    outcome = set_policy(queue, lead, fair_weight="3", stop_policy="Hold")
    assert outcome.change_request.beyond_envelope == [
        "only a platform admin may change the stop policy",
        "fair-sharing weight 3 is outside the envelope [0.5, 2]",
    ]


def test_unlimited_borrowing_exceeds_a_finite_envelope(queue, lead, envelope):
    set_policy(queue, lead, quotas=[quota("h100", "16", borrowing_limit="8"), quota("a100", "8")])
    outcome = set_policy(queue, lead, quotas=[quota("h100", "16"), quota("a100", "8")])
    assert (
        "borrowing limit unlimited for h100/nvidia.com/gpu"
        in outcome.change_request.beyond_envelope[0]
    )


def test_approval_applies_the_request_on_top_of_later_edits(queue, lead, envelope, admin):
    request = set_policy(
        queue, lead, quotas=[quota("h100", "40"), quota("a100", "8")]
    ).change_request
    set_policy(queue, admin, fair_weight="1500m")  # an unrelated edit lands first
    services.approve_change_request(request, actor=admin, comment="ok for Q4")
    after = snapshot(queue)
    assert after["quotas"][0]["nominal"] == "40"
    assert after["fair_weight"] == "1500m"
    request.refresh_from_db()
    assert request.status == "approved" and request.applied_version == after["version"]
    assert AuditEntry.objects.filter(action="update", change_request=request).exists()


def test_approval_revalidates_against_current_capacity(queue, other_queue, lead, envelope, admin):
    request = set_policy(
        queue, lead, quotas=[quota("h100", "40"), quota("a100", "8")]
    ).change_request
    set_policy(other_queue, admin, quotas=[quota("h100", "30")])  # now 40 + 30 > 64
    with pytest.raises(InvalidInput):
        services.approve_change_request(request, actor=admin)
    request.refresh_from_db()
    assert request.status == "pending"
    services.approve_change_request(request, actor=admin, capacity_override_reason="burst week")
    assert snapshot(queue)["quotas"][0]["nominal"] == "40"


def test_rejection_needs_a_comment_and_leaves_the_queue(queue, lead, envelope, admin):
    before = snapshot(queue)
    request = set_policy(queue, lead, quotas=[quota("h100", "40")]).change_request
    with pytest.raises(InvalidInput) as caught:
        services.reject_change_request(request, actor=admin, comment=" ")
    assert "comment" in caught.value.errors
    services.reject_change_request(request, actor=admin, comment="no budget")
    request.refresh_from_db()
    assert (request.status, request.decision_comment) == ("rejected", "no budget")
    assert snapshot(queue) == before


def test_only_admins_decide_and_decisions_are_final(queue, lead, envelope, admin):
    request = set_policy(queue, lead, quotas=[quota("h100", "40")]).change_request
    with pytest.raises(NotAllowed):
        services.approve_change_request(request, actor=lead)
    services.withdraw_change_request(request, actor=lead)
    with pytest.raises(InvalidInput):
        services.approve_change_request(request, actor=admin)


def test_stale_requests_expire(queue, lead, envelope, settings):
    from datetime import timedelta

    from django.utils import timezone

    request = set_policy(queue, lead, quotas=[quota("h100", "40")]).change_request
    ChangeRequest.objects.filter(pk=request.pk).update(
        created_at=timezone.now() - timedelta(days=30)
    )
    assert services.expire_stale_change_requests() == 1
    assert services.expire_stale_change_requests() == 0
    request.refresh_from_db()
    assert request.status == "expired"


def test_a_scientist_cannot_edit(queue, scientist):
    with pytest.raises(NotAllowed):
        set_policy(queue, scientist, fair_weight="2")
