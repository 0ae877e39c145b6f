"""A flavor's tolerations and node taints are checked as Kueue's ResourceFlavor CRD and
webhook check them, so nothing an admin saves makes every later reconcile fail."""

from __future__ import annotations

import pytest

from apps.queues import services
from apps.queues.models import AuditEntry, ResourceFlavor
from core.errors import InvalidInput
from testkit.clients import api_as

GPU = {"nvidia.com/gpu": "8"}
TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}

BAD_TOLERATIONS = [
    ("unknown operator", {**TOLERATION, "operator": "In"}, "tolerations[0].operator", "Equal"),
    ("Exists with a value", {**TOLERATION, "value": "x"}, "tolerations[0].value", "must be empty"),
    (
        "no key without Exists",
        {"operator": "Equal", "value": "x"},
        "tolerations[0].operator",
        "Exists",
    ),
    ("unknown effect", {**TOLERATION, "effect": "NoRun"}, "tolerations[0].effect", "NoSchedule"),
    ("bad key", {**TOLERATION, "key": "not a key!"}, "tolerations[0].key", "qualified"),
    (
        "bad value",
        {"key": "a", "operator": "Equal", "value": "-x-" * 30},
        "tolerations[0].value",
        "label value",
    ),
    (
        "seconds without NoExecute",
        {**TOLERATION, "tolerationSeconds": 30},
        "tolerations[0].tolerationSeconds",
        "NoExecute",
    ),
    (
        "seconds not a number",
        {**TOLERATION, "effect": "NoExecute", "tolerationSeconds": "30"},
        "tolerations[0].tolerationSeconds",
        "integer",
    ),
    ("extra field", {**TOLERATION, "evil": 1}, "tolerations[0].evil", "not a toleration field"),
    ("not an object", "nvidia.com/gpu", "tolerations[0]", "object"),
]
BAD_TAINTS = [
    (
        "extra field",
        {**TAINT, "operator": "Exists"},
        "node_taints[0].operator",
        "not a taint field",
    ),
    ("no key", {"effect": "NoSchedule"}, "node_taints[0].key", "qualified"),
    ("unknown effect", {**TAINT, "effect": "Never"}, "node_taints[0].effect", "NoSchedule"),
    ("bad value", {**TAINT, "value": "a b"}, "node_taints[0].value", "label value"),
    ("not an object", ["x"], "node_taints[0]", "object"),
]


def _refused(admin, field: str, rule: str, **flavor) -> None:
    audit_rows = AuditEntry.objects.count()
    with pytest.raises(InvalidInput) as caught:
        services.save_flavor(name="l40s", capacity=GPU, actor=admin, **flavor)
    assert any(rule in m for m in caught.value.errors.get(field, [])), caught.value.errors
    assert not ResourceFlavor.objects.filter(name="l40s").exists()
    assert AuditEntry.objects.count() == audit_rows


@pytest.mark.parametrize(
    ("label", "toleration", "field", "rule"), BAD_TOLERATIONS, ids=[c[0] for c in BAD_TOLERATIONS]
)
def test_it_refuses_a_toleration_kueue_would_reject(admin, label, toleration, field, rule):
    _refused(admin, field, rule, tolerations=[toleration])


@pytest.mark.parametrize(
    ("label", "taint", "field", "rule"), BAD_TAINTS, ids=[c[0] for c in BAD_TAINTS]
)
def test_it_refuses_a_taint_kueue_would_reject(admin, label, taint, field, rule):
    _refused(admin, field, rule, node_taints=[taint])


def test_it_refuses_more_than_eight_of_either(admin):
    _refused(admin, "tolerations", "at most 8", tolerations=[TOLERATION] * 9)
    taints = [{**TAINT, "key": f"example.com/t{i}"} for i in range(9)]
    _refused(admin, "node_taints", "at most 8", node_taints=taints)


def test_the_api_answers_400_naming_the_field(admin):
    body = {"name": "l40s", "capacity": GPU, "tolerations": [{**TOLERATION, "operator": "In"}]}
    response = api_as(admin).post("/api/v1/flavors/", body, format="json")
    assert response.status_code == 400
    assert "tolerations[0].operator" in response.json()["errors"]


def test_it_accepts_what_kueue_accepts(admin):
    tolerations = [
        TOLERATION,
        {"operator": "Exists"},
        {
            "key": "spot",
            "operator": "Equal",
            "value": "true",
            "effect": "NoExecute",
            "tolerationSeconds": 60,
        },
        {"key": "spot", "value": "true"},
    ]
    flavor = services.save_flavor(
        name="l40s",
        capacity=GPU,
        actor=admin,
        tolerations=tolerations,
        node_taints=[TAINT, {"key": "spot", "effect": "NoExecute"}],
    )
    assert flavor.tolerations == tolerations
