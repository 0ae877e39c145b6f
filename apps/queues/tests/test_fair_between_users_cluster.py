"""Turning a team queue fair between users: the edit's rules, and the reconciler writing
the ClusterQueue's admissionScope and the members' LocalQueues to the simulated cluster."""

from __future__ import annotations

import pytest

from apps.queues import services
from apps.queues.models import AuditEntry, Queue
from apps.queues.reconcile.run import reconcile
from apps.queues.user_queues import user_local_queue_name
from core.errors import InvalidInput
from testkit.clients import api_as
from testkit.factories import set_policy

pytestmark = pytest.mark.django_db

AFS = {"admissionMode": "UsageBasedAdmissionFairSharing"}


def test_a_lead_turns_it_on_through_the_api_and_it_is_audited(lead, queue):
    body = {"version": queue.version, "fair_between_users": True}
    response = api_as(lead).patch(f"/api/v1/queues/{queue.pk}/", body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["fair_between_users"] is True
    entry = AuditEntry.objects.filter(object_type="queue").latest("pk")
    assert {"field": "fair_between_users", "before": False, "after": True} in entry.changes


def test_a_shared_queue_cannot_be_fair_between_users_and_nothing_is_written(admin, policy):
    shared = policy["shared"]
    with pytest.raises(InvalidInput) as refused:
        set_policy(shared, admin, fair_between_users=True)
    (message,) = refused.value.errors["fair_between_users"]
    assert "only a team's queue" in message and "e.g. false" in message
    assert Queue.objects.get(pk=shared.pk).version == shared.version


def test_a_value_that_is_not_true_or_false_is_refused_naming_the_field(admin, queue):
    with pytest.raises(InvalidInput) as refused:
        set_policy(queue, admin, fair_between_users="sometimes")
    assert refused.value.errors == {"fair_between_users": ["must be true or false, e.g. true"]}
    assert Queue.objects.get(pk=queue.pk).fair_between_users is False


def test_the_objects_appear_and_a_second_run_writes_nothing(
    cluster, policy, admin, lead, scientist
):
    set_policy(policy["queue"], admin, fair_between_users=True)
    summary = reconcile()
    assert summary.errors == []
    assert cluster.get("ClusterQueue", "vision")["spec"]["admissionScope"] == AFS
    for user in ("lead", "scientist"):
        name = user_local_queue_name("vision", user)
        local = cluster.get("LocalQueue", name, "team-vision")
        assert local["spec"]["clusterQueue"] == "vision"
        assert local["metadata"]["labels"]["quartermaster.io/user"] == user
    assert cluster.get("LocalQueue", "vision", "team-vision") is not None  # the team's stays
    # nlp's queue is not fair between users: no admissionScope there.
    assert "admissionScope" not in cluster.get("ClusterQueue", "nlp")["spec"]
    cluster.reset_counters()
    again = reconcile()
    assert (again.created, again.updated, again.deleted) == (0, 0, 0)
    assert cluster.writes() == 0


def test_a_member_who_leaves_loses_their_local_queue(cluster, policy, admin, lead, scientist):
    set_policy(policy["queue"], admin, fair_between_users=True)
    reconcile()
    services.remove_membership(team=policy["queue"].team, user=scientist, actor=admin)
    summary = reconcile()
    assert summary.deleted == 1
    assert (
        cluster.get("LocalQueue", user_local_queue_name("vision", "scientist"), "team-vision")
        is None
    )
    assert cluster.get("LocalQueue", user_local_queue_name("vision", "lead"), "team-vision")
