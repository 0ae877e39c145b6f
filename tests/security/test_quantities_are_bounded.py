"""Absurd quantities (huge exponents, 71 digits, NaN) get a 400 naming the field and
the rule, wherever a quantity is accepted; nothing is written, on every database."""

from __future__ import annotations

import pytest

from apps.queues.models import AuditEntry
from testkit.clients import api_as
from testkit.factories import quota, snapshot

HOSTILE = [
    "1e9999999",
    "1e999999",
    "1" * 71,
    "1." + "1" * 69,
    "NaN",
    "Infinity",
    "-Infinity",
    "1e-99999999",
    "0." + "0" * 40 + "1",
    "9" * 30 + "Ei",
]


def _assert_rejected(response, field: str) -> None:
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert field in errors, errors
    assert any("quantity" in message for message in errors[field]), errors


@pytest.mark.parametrize("value", HOSTILE)
def test_it_rejects_a_hostile_weight_or_quota(queue, admin, value):
    before, audit_rows = snapshot(queue), AuditEntry.objects.count()
    client = api_as(admin)
    url = f"/api/v1/queues/{queue.pk}/"
    version = before["version"]
    cases = [
        ({"fair_weight": value}, "fair_weight"),
        ({"quotas": [quota(nominal=value)]}, "quotas[0].nominal"),
        ({"quotas": [quota(borrowing_limit=value)]}, "quotas[0].borrowing_limit"),
        ({"quotas": [quota(lending_limit=value)]}, "quotas[0].lending_limit"),
    ]
    for body, field in cases:
        _assert_rejected(client.put(url, {"version": version, **body}, format="json"), field)
    assert snapshot(queue) == before
    assert AuditEntry.objects.count() == audit_rows


@pytest.mark.parametrize("value", HOSTILE)
def test_it_rejects_a_hostile_quantity_in_a_leads_preview(queue, lead, envelope, value):
    client = api_as(lead)
    url = f"/api/v1/queues/{queue.pk}/preview/"
    version = snapshot(queue)["version"]
    for body, field in (
        ({"fair_weight": value}, "fair_weight"),
        ({"quotas": [quota(nominal=value)]}, "quotas[0].nominal"),
    ):
        response = client.post(url, {"version": version, **body}, format="json")
        assert response.status_code == 200, response.content
        assert field in response.json()["errors"], response.json()


@pytest.mark.parametrize("value", HOSTILE)
def test_it_rejects_a_hostile_capacity_envelope_or_cohort_weight(team, admin, value):
    client = api_as(admin)
    audit_rows = AuditEntry.objects.count()
    response = client.put(
        "/api/v1/flavors/h100/", {"capacity": {"nvidia.com/gpu": value}}, format="json"
    )
    _assert_rejected(response, "capacity.nvidia.com/gpu")
    response = client.put("/api/v1/cohorts/research/", {"fair_weight": value}, format="json")
    _assert_rejected(response, "fair_weight")
    envelope = "/api/v1/teams/vision/envelope/"
    _assert_rejected(client.put(envelope, {"max_weight": value}, format="json"), "max_weight")
    limit = {"flavor": "h100", "resource": "nvidia.com/gpu", "max_nominal": value}
    response = client.put(envelope, {"limits": [limit]}, format="json")
    _assert_rejected(response, "limits[0].max_nominal")
    response = client.put(
        envelope, {"limits": [{**limit, "max_nominal": "8", "max_borrowing": value}]}, format="json"
    )
    _assert_rejected(response, "limits[0].max_borrowing")
    assert AuditEntry.objects.count() == audit_rows


def test_it_still_accepts_ordinary_quantities(queue, admin):
    body = {
        "version": snapshot(queue)["version"],
        "fair_weight": "1.5",
        "quotas": [quota(nominal="1e1")],
    }
    response = api_as(admin).put(f"/api/v1/queues/{queue.pk}/", body, format="json")
    assert response.status_code == 200, response.content
