"""A what-if draft is checked like a save before anything is stored or replayed:
its structure, unknown fields, every rule and physical capacity; bad ones get a 400
naming the field, and no run is created."""

import pytest

from apps.queues.models import AuditEntry
from apps.whatif import services
from apps.whatif.models import WhatIfRun
from testkit.clients import api_as

pytestmark = pytest.mark.django_db
H100 = {"flavor": "h100", "resource": "nvidia.com/gpu"}

CASES = [
    ("quotas not a list", {"vision": {"quotas": "abc"}}, "vision.quotas"),
    ("quota not an object", {"vision": {"quotas": [1]}}, "vision.quotas[0]"),
    ("unknown field", {"vision": {"evil": 1}}, "vision.evil"),
    (
        "unknown quota field",
        {"vision": {"quotas": [{**H100, "nominal": "8", "x": 1}]}},
        "vision.quotas[0].x",
    ),
    (
        "nominal not text",
        {"vision": {"quotas": [{**H100, "nominal": ["8"]}]}},
        "vision.quotas[0].nominal",
    ),
    ("preemption not an object", {"vision": {"preemption": "all"}}, "vision.preemption"),
    ("unknown preemption field", {"vision": {"preemption": {"evil": 1}}}, "vision.preemption.evil"),
    ("cohort not text", {"vision": {"cohort": {"a": 1}}}, "vision.cohort"),
    ("weight not text", {"vision": {"fair_weight": [1]}}, "vision.fair_weight"),
    ("hostile weight", {"vision": {"fair_weight": "1e999999"}}, "vision.fair_weight"),
    (
        "beyond capacity",
        {"vision": {"quotas": [{**H100, "nominal": "400"}]}},
        "vision.quotas[0].nominal",
    ),
    (
        "fraction of a GPU",
        {"vision": {"quotas": [{**H100, "nominal": "1.5"}]}},
        "vision.quotas[0].nominal",
    ),
]


@pytest.mark.parametrize(("label", "draft", "field"), CASES, ids=[c[0] for c in CASES])
def test_it_refuses_a_malformed_draft_naming_the_field(queue, lead, admin, label, draft, field):
    audit_rows = AuditEntry.objects.count()
    for user in (lead, admin):
        response = api_as(user).post("/api/v1/whatif/", {"draft": draft}, format="json")
        assert response.status_code == 400, response.content
        assert field in response.json()["errors"], response.json()
    assert WhatIfRun.objects.count() == 0
    assert AuditEntry.objects.count() == audit_rows


def test_the_service_refuses_a_draft_that_is_not_a_mapping_of_proposals(queue, lead):
    from core.errors import InvalidInput

    for draft, field in ((["vision"], "draft"), ({"vision": "abc"}, "vision")):
        with pytest.raises(InvalidInput) as caught:
            services.request_whatif(draft, actor=lead)
        assert field in caught.value.errors
    assert WhatIfRun.objects.count() == 0
