"""Admins update priority tiers (and other catalog objects) through the API with PUT or
PATCH; anyone else gets 403, whatever the body, and nothing changes."""

from __future__ import annotations

import pytest

from apps.queues.models import AuditEntry, Cohort, PriorityTier
from testkit.clients import api_as

URL = "/api/v1/priority-tiers/p2-standard/"


def _tier() -> dict:
    tier = PriorityTier.objects.get(name="p2-standard")
    return {"value": tier.value, "description": tier.description}


def test_an_admin_replaces_a_tier_with_put(catalog):
    body = {"value": 150, "description": "standard batch"}
    response = api_as(catalog).put(URL, body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"name": "p2-standard", **body}
    assert _tier() == body
    assert AuditEntry.objects.filter(object_type="prioritytier", action="update").count() == 1


def test_an_admin_changes_one_field_with_patch(catalog):
    response = api_as(catalog).patch(URL, {"description": "for most jobs"}, format="json")
    assert response.status_code == 200, response.json()
    assert _tier() == {"value": 100, "description": "for most jobs"}


def test_an_admin_patches_a_cohort_too(catalog):
    response = api_as(catalog).patch(
        "/api/v1/cohorts/research/", {"fair_weight": "2"}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert Cohort.objects.get(name="research").fair_weight == "2"


def test_an_invalid_update_names_the_field(catalog):
    response = api_as(catalog).put(URL, {"value": 2**40}, format="json")
    assert response.status_code == 400
    assert "value" in response.json()["errors"]
    assert _tier() == {"value": 100, "description": ""}


@pytest.mark.parametrize("body", [{"value": 1}, {"value": "not a number"}, {}])
def test_others_get_403_whatever_the_body(lead, scientist, body):
    before = _tier()
    for user in (lead, scientist):
        assert api_as(user).put(URL, body, format="json").status_code == 403
        assert api_as(user).patch(URL, body, format="json").status_code == 403
        assert api_as(user).post("/api/v1/priority-tiers/", body, format="json").status_code == 403
    assert _tier() == before
