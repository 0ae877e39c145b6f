"""The what-if API refuses a field it does not declare, and writes nothing."""

import pytest

from apps.queues.models import AuditEntry, ChangeRequest
from apps.whatif import services
from apps.whatif.models import WhatIfRun
from testkit.clients import api_as

pytestmark = pytest.mark.django_db
SMALLER = {"quotas": [{"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "12"}]}


def assert_unknown(response, field: str) -> None:
    assert response.status_code == 400, response.json()
    body = response.json()
    assert (body["code"], body["field"]) == ("unknown_field", field)


def test_a_run_request_refuses_an_unknown_field(queue, lead):
    body = {"draft": {"vision": SMALLER}, "weeks": 2}
    assert_unknown(api_as(lead).post("/api/v1/whatif/", body, format="json"), "weeks")
    assert not WhatIfRun.objects.exists()


def test_apply_refuses_an_unknown_field(queue, admin):
    run = services.request_whatif({"vision": SMALLER}, actor=admin)
    audit_rows = AuditEntry.objects.count()
    response = api_as(admin).post(
        f"/api/v1/whatif/{run.pk}/apply/", {"reason": "ok", "force": True}, format="json"
    )
    assert_unknown(response, "force")
    assert not ChangeRequest.objects.exists()
    assert AuditEntry.objects.count() == audit_rows
