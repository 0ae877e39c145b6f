"""The demo's inference service: ines's model server for team inference (2 replicas × 1
h100 GPU in its production queue, at the inference tier), requested once the week has
been played, so that `make run` shows it serving on *Inference*."""

from __future__ import annotations

from apps.accounts.models import User
from apps.jobs.models import InferenceService, NotebookImage
from apps.jobs.services import Principal
from apps.jobs.services.inference import InferenceRequest, request_inference_service

DEMO_SERVICE_KEY = "demo-inference-service"  # requested once, however often this runs
SERVING_IMAGE = "nvcr.io/nvidia/tritonserver:24.10-py3"
SERVICE = InferenceRequest(
    flavor="h100-80gb",
    image=SERVING_IMAGE,
    replicas=2,
    gpus_per_replica=1,
    command=("tritonserver", "--model-repository=/models"),
    team="inference",
    display_name="model server",
)


def request_demo_inference() -> InferenceService | None:
    """ines's service, or None where the demo was never loaded."""
    ines = User.objects.filter(username="ines", is_active=True).first()
    if ines is None:
        return None
    NotebookImage.objects.get_or_create(
        image=SERVING_IMAGE, defaults={"description": "Triton inference server"}
    )
    return request_inference_service(
        ines, SERVICE, actor=Principal(ines), idempotency_key=DEMO_SERVICE_KEY
    ).record
