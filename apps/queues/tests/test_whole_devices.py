"""GPUs and MIG slices are whole devices: a fractional quota, limit, capacity or envelope
maximum for them is refused naming the field and the rule; CPU may still be fractional."""

from __future__ import annotations

import pytest

from apps.queues import services
from apps.queues.models import AuditEntry
from core.errors import InvalidInput
from testkit.clients import api_as
from testkit.factories import quota, set_policy, snapshot

WHOLE = "whole number"


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        (quota("h100", "1.5"), "quotas[0].nominal"),
        (quota("h100", "500m"), "quotas[0].nominal"),
        (quota("h100", "8", borrowing_limit="0.5"), "quotas[0].borrowing_limit"),
        (quota("h100", "8", lending_limit="2.5"), "quotas[0].lending_limit"),
        (quota("a100", "1.5", resource="nvidia.com/mig-1g.10gb"), "quotas[0].nominal"),
    ],
)
def test_it_refuses_fractions_of_a_device_in_a_queue(queue, admin, entry, field):
    before, audit_rows = snapshot(queue), AuditEntry.objects.count()
    with pytest.raises(InvalidInput) as caught:
        set_policy(queue, admin, cohort="research", quotas=[entry])
    assert any(WHOLE in m for m in caught.value.errors[field]), caught.value.errors
    assert snapshot(queue) == before
    assert AuditEntry.objects.count() == audit_rows


def test_the_api_names_the_field_and_the_rule(queue, admin):
    body = {"version": snapshot(queue)["version"], "quotas": [quota("h100", "1.5")]}
    response = api_as(admin).put(f"/api/v1/queues/{queue.pk}/", body, format="json")
    assert response.status_code == 400
    assert WHOLE in response.json()["errors"]["quotas[0].nominal"][0]


def test_it_refuses_fractional_device_capacity_and_envelope_maxima(team, admin):
    with pytest.raises(InvalidInput) as caught:
        services.save_flavor(name="h100", capacity={"nvidia.com/gpu": "63.5"}, actor=admin)
    assert WHOLE in caught.value.errors["capacity.nvidia.com/gpu"][0]
    limit = {"flavor": "h100", "resource": "nvidia.com/gpu", "max_nominal": "2.5"}
    with pytest.raises(InvalidInput) as caught:
        services.save_envelope(team=team, actor=admin, limits=[limit])
    assert WHOLE in caught.value.errors["limits[0].max_nominal"][0]


def test_cpu_and_memory_may_be_fractional(admin):
    flavor = services.save_flavor(
        name="cpu-pool", capacity={"cpu": "95.5", "memory": "1.5Ti"}, actor=admin
    )
    assert {c.capacity for c in flavor.capacities.all()} == {"95.5", "1.5Ti"}
