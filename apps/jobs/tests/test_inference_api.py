"""Inference service API: request (201, idempotent), field errors, team visibility, stop."""

import pytest

from apps.jobs.choices import InferenceState
from apps.jobs.models import InferenceService
from testkit.clients import api_as
from testkit.fixtures.inference import SERVING_IMAGE

pytestmark = pytest.mark.django_db
URL = "/api/v1/inference-services/"
BODY = {"flavor": "h100", "image": SERVING_IMAGE, "replicas": 2, "gpus_per_replica": 2}


def test_a_member_requests_one_and_a_retry_returns_it(scientist, production_queue):
    client = api_as(scientist)
    first = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    again = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert first.status_code == 201, first.json()
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    body = first.json()
    assert body["id"] == again.json()["id"]
    # 2 replicas × 2 GPUs, in the team's production queue at the inference tier.
    assert (body["total_gpus"], body["queue"], body["priority_tier"]) == (
        4,
        "vision-serving",
        "p0-critical",
    )
    assert body["state"] == InferenceState.REQUESTED
    assert InferenceService.objects.count() == 1


def test_a_bad_body_names_the_field_and_saves_nothing(scientist, production_queue):
    response = api_as(scientist).post(URL, {**BODY, "pod_spec": {}}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "unknown_field"
    response = api_as(scientist).post(URL, {**BODY, "queue": "nope"}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "queue"
    assert not InferenceService.objects.exists()


def test_only_the_team_sees_it_and_a_lead_stops_it(scientist, lead, outsider, production_queue):
    pk = api_as(scientist).post(URL, BODY, format="json").json()["id"]
    assert [s["id"] for s in api_as(lead).get(URL).json()["results"]] == [pk]
    assert api_as(outsider).get(f"{URL}{pk}/").status_code == 404
    assert api_as(outsider).delete(f"{URL}{pk}/").status_code == 404
    assert api_as(lead).delete(f"{URL}{pk}/").status_code == 204
    assert InferenceService.objects.get(pk=pk).state == InferenceState.STOPPED
