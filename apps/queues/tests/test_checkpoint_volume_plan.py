"""The team checkpoint volumes in the pure render and plan: one claim per team namespace,
repaired like any owned object, never deleted."""

from __future__ import annotations

import dataclasses

from apps.queues import kueue
from apps.queues.reconcile import plan as p
from apps.queues.tests.test_kueue_render import SAMPLE
from apps.queues.tests.test_reconcile_plan import _as_observed, _only

V = "v1beta2"
CLAIM = kueue.PERSISTENT_VOLUME_CLAIM


def _claims(state: kueue.PolicyState) -> list[dict]:
    return [o for o in kueue.render_all(state) if o["kind"] == CLAIM]


def test_every_team_namespace_gets_one_claim_of_the_admins_class_and_size():
    claims = _claims(SAMPLE)
    # SAMPLE: vision has team-vision and team-vision-dev, nlp has team-nlp.
    assert [(c["metadata"]["namespace"], c["metadata"]["name"]) for c in claims] == [
        ("team-vision", "quartermaster-checkpoints"),
        ("team-vision-dev", "quartermaster-checkpoints"),
        ("team-nlp", "quartermaster-checkpoints"),
    ]
    assert {c["spec"]["storageClassName"] for c in claims} == {"cephfs-rwx"}
    assert {c["spec"]["resources"]["requests"]["storage"] for c in claims} == {"500Gi"}
    assert claims[2]["metadata"]["labels"] == {
        kueue.MANAGED_BY: kueue.MANAGER,
        kueue.TEAM_LABEL: "nlp",
    }


def test_without_a_storage_class_no_claim_is_rendered():
    assert _claims(dataclasses.replace(SAMPLE, checkpoint_volume=None)) == []


def test_a_claim_resized_behind_our_back_is_patched_back():
    desired = kueue.render_all(SAMPLE)
    observed = _as_observed(desired)
    live = observed[(CLAIM, "team-nlp", kueue.CHECKPOINT_CLAIM)]
    live["spec"]["resources"]["requests"]["storage"] = "1Ti"
    live["spec"]["volumeName"] = "pvc-123"  # the binder's field: not ours
    applied = {
        (CLAIM, "team-nlp", kueue.CHECKPOINT_CLAIM): {"spec.resources.requests.storage": "500Gi"}
    }
    (update,) = _only(p.plan(desired, observed, version=V, applied=applied), p.UPDATE)
    assert update.key == (CLAIM, "team-nlp", kueue.CHECKPOINT_CLAIM)
    assert update.patch == {
        "metadata": {"resourceVersion": "7"},
        "spec": {"resources": {"requests": {"storage": "500Gi"}}},
    }
    assert [(d.field, d.cluster, d.desired) for d in update.drift] == [
        ("spec.resources.requests.storage", "1Ti", "500Gi")
    ]


def test_a_claim_no_longer_wanted_loses_our_labels_and_keeps_its_data():
    observed = _as_observed(kueue.render_all(SAMPLE))
    desired = kueue.render_all(dataclasses.replace(SAMPLE, checkpoint_volume=None))
    actions = p.plan(desired, observed, version=V)
    assert _only(actions, p.DELETE) == []
    released = [a for a in _only(actions, p.UPDATE) if a.kind == CLAIM]
    assert [a.namespace for a in released] == ["team-nlp", "team-vision", "team-vision-dev"]
    assert released[0].patch["metadata"]["labels"] == {
        kueue.MANAGED_BY: None,
        kueue.TEAM_LABEL: None,
    }
    assert "claim and data kept" in released[0].message


def test_a_claim_of_that_name_made_by_someone_else_is_blocked_not_touched():
    desired = kueue.render_all(SAMPLE)
    observed = _as_observed(desired)
    del observed[(CLAIM, "team-nlp", kueue.CHECKPOINT_CLAIM)]["metadata"]["labels"]
    (blocked,) = _only(p.plan(desired, observed, version=V), p.BLOCKED)
    assert blocked.key == (CLAIM, "team-nlp", kueue.CHECKPOINT_CLAIM) and not blocked.writes
