"""The inference tier is for inference services only: a batch job at it is refused,
naming the field and a tier it may take, and nothing is saved (docs/inference.md)."""

import pytest

from apps.jobs.models import BatchJob
from apps.queues import services as queue_services
from testkit.clients import api_as

URL = "/api/v1/jobs/"
BODY = {"template": "pytorch-train", "flavor": "h100", "gpus_per_pod": 1, "pods": 1}


@pytest.fixture
def inference_tier(tiers, admin):
    return queue_services.save_priority_tier(
        name="p0-critical", value=1000, inference_only=True, actor=admin
    )


@pytest.mark.django_db
def test_even_an_admin_cannot_run_batch_at_the_inference_tier(
    queue, template, admin, inference_tier
):
    from core.roles import TeamRole

    queue_services.add_membership(team=queue.team, user=admin, role=TeamRole.LEAD, actor=admin)
    response = api_as(admin).post(URL, {**BODY, "priority_tier": "p0-critical"}, format="json")
    assert response.status_code == 400, response.json()
    body = response.json()
    assert body["field"] == "priority_tier"
    # The admin's highest batch tier is the fixture's "interactive" (value 1000).
    assert body["detail"] == (
        "tier 'p0-critical' is reserved for inference services; a batch job takes a "
        "lower tier, e.g. interactive"
    )
    assert not BatchJob.objects.exists()


@pytest.mark.django_db
def test_the_inference_tier_is_not_offered_to_batch(queue, template, scientist, inference_tier):
    from apps.jobs.services.jobs import allowed_tiers

    assert "p0-critical" not in {t.name for t in allowed_tiers(scientist, queue.team)}
