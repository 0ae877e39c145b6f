"""Bad inference requests are refused naming the field and the rule, and write nothing;
a stop ends the service once (docs/inference.md)."""

import pytest

from apps.jobs.choices import InferenceState
from apps.jobs.models import InferenceService
from apps.jobs.services import Principal
from apps.jobs.services.inference import (
    InferenceRequest,
    request_inference_service,
    stop_inference_service,
)
from core.errors import DomainError
from testkit.fixtures.inference import SERVING_IMAGE

pytestmark = pytest.mark.django_db
GOOD = {"flavor": "h100", "image": SERVING_IMAGE, "replicas": 2}

CASES = [
    ("no replicas", {"replicas": 0}, "replicas", "replicas must be 1–32, e.g. 2"),
    ("too many GPUs", {"gpus_per_replica": 9}, "gpus_per_replica", "must be 1–8"),
    ("image off the list", {"image": "evil:latest"}, "image", "not on the allow-list"),
    (
        "batch queue",
        {"queue": "vision"},
        "queue",
        "queue 'vision' is not a production queue: an inference service runs in a production "
        "queue (one that never borrows or lends), e.g. vision-serving",
    ),
    (
        "batch tier",
        {"priority_tier": "p2-standard"},
        "priority_tier",
        "an inference service runs at an inference-only tier, e.g. p0-critical",
    ),
    # The production queue holds 4 h100 GPUs: 3 replicas × 2 GPUs = 6 > 4.
    ("never fits", {"replicas": 3, "gpus_per_replica": 2}, "replicas", "would never start"),
]


@pytest.mark.parametrize(("label", "change", "field", "rule"), CASES, ids=[c[0] for c in CASES])
def test_it_refuses_and_writes_nothing(
    scientist, queue, production_queue, label, change, field, rule
):
    with pytest.raises(DomainError) as caught:
        request_inference_service(
            scientist, InferenceRequest(**{**GOOD, **change}), actor=Principal(scientist)
        )
    assert caught.value.field == field
    assert rule in caught.value.detail
    assert not InferenceService.objects.exists()


def test_an_outsider_may_not_request_one(outsider, production_queue):
    with pytest.raises(DomainError) as caught:
        request_inference_service(outsider, InferenceRequest(**GOOD), actor=Principal(outsider))
    assert caught.value.code == "not_a_member"
    assert not InferenceService.objects.exists()


def test_a_stop_ends_it_once(scientist, production_queue):
    service = request_inference_service(
        scientist, InferenceRequest(**GOOD), actor=Principal(scientist)
    ).record
    assert service.priority_tier.name == "p0-critical"  # the inference tier by default
    assert stop_inference_service(service, actor=Principal(scientist)) is True
    assert stop_inference_service(service, actor=Principal(scientist)) is False
    service.refresh_from_db()
    assert service.state == InferenceState.STOPPED
    assert service.state_reason == "stopped by scientist"
