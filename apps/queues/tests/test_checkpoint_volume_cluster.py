"""The reconciler gives each team namespace its checkpoint claim, leaves it alone when
nothing changed, repairs it, and never deletes it: on the simulated cluster over HTTP and,
where the API server allows the same edits, on the real control plane (an unbound claim's
size is immutable there, so the repair test is simulated only)."""

from __future__ import annotations

import pytest
from django.test import override_settings

from apps.queues import kueue
from apps.queues.models import AuditEntry
from apps.queues.reconcile.run import reconcile
from core.audit import AuditAction

pytestmark = pytest.mark.django_db

CLAIM = kueue.PERSISTENT_VOLUME_CLAIM
WITH_VOLUMES = override_settings(
    QM_CHECKPOINT_STORAGE_CLASS="sim-rwx", QM_CHECKPOINT_VOLUME_SIZE="200Gi"
)


def _claims(cluster) -> dict[str, dict]:
    return {
        c["metadata"]["namespace"]: c
        for c in cluster.list(CLAIM)
        if c["metadata"]["name"] == kueue.CHECKPOINT_CLAIM
    }


def test_without_a_storage_class_no_claim_is_made(cluster, policy):
    reconcile()
    assert _claims(cluster) == {}


@pytest.mark.both_clusters
@WITH_VOLUMES
def test_each_team_namespace_gets_its_claim_once(cluster, policy):
    summary = reconcile()
    assert summary.errors == []
    claims = _claims(cluster)
    assert sorted(claims) == ["team-nlp", "team-vision"]
    vision = claims["team-vision"]
    assert vision["metadata"]["labels"][kueue.TEAM_LABEL] == "vision"
    assert vision["spec"]["storageClassName"] == "sim-rwx"
    assert vision["spec"]["resources"]["requests"]["storage"] == "200Gi"

    cluster.reset_counters()
    again = reconcile()
    assert (again.created, again.updated, again.deleted) == (0, 0, 0)
    assert cluster.writes() == 0


@WITH_VOLUMES
def test_a_claim_resized_behind_our_back_is_repaired_and_audited(cluster, policy):
    reconcile()
    cluster.patch(
        CLAIM,
        kueue.CHECKPOINT_CLAIM,
        {"spec": {"resources": {"requests": {"storage": "1Ti"}}}},
        "team-nlp",
    )
    summary = reconcile()
    assert summary.updated == 1
    claim = _claims(cluster)["team-nlp"]
    assert claim["spec"]["resources"]["requests"]["storage"] == "200Gi"
    drift = AuditEntry.objects.get(action=AuditAction.DRIFT_REPAIRED)
    assert "spec.resources.requests.storage" in str(drift.changes)


@pytest.mark.both_clusters
def test_a_claim_no_longer_wanted_is_released_with_its_data_not_deleted(cluster, policy):
    with WITH_VOLUMES:
        reconcile()
    summary = reconcile()  # the admin cleared the storage class
    assert summary.deleted == 0 and summary.errors == []
    claims = _claims(cluster)
    assert sorted(claims) == ["team-nlp", "team-vision"]
    labels = claims["team-vision"]["metadata"].get("labels") or {}
    assert kueue.MANAGED_BY not in labels
