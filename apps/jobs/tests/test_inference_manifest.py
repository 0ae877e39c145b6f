"""An inference service renders as one StatefulSet Kueue admits as a pod group, plus a
Service; labels say its queue, its tier and its class (docs/inference.md)."""

import pytest

from apps.jobs.inference_manifest import render_inference
from apps.jobs.services import Principal
from apps.jobs.services.inference import InferenceRequest, request_inference_service
from testkit.fixtures.inference import SERVING_IMAGE

pytestmark = pytest.mark.django_db


def test_it_renders_a_statefulset_of_all_replicas_and_a_service(scientist, production_queue):
    service = request_inference_service(
        scientist,
        InferenceRequest(
            flavor="h100", image=SERVING_IMAGE, replicas=2, command=("serve", "--port=8080")
        ),
        actor=Principal(scientist),
    ).record
    statefulset, front = render_inference(service)
    assert statefulset["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "quartermaster",
        "quartermaster.io/team": "vision",
        "quartermaster.io/owner": "scientist",
        "quartermaster.io/inference": service.name,
        "quartermaster.io/workload-class": "inference",
        "kueue.x-k8s.io/queue-name": "vision-serving",
        "kueue.x-k8s.io/priority-class": "p0-critical",
    }
    spec = statefulset["spec"]
    assert spec["replicas"] == 2
    assert spec["podManagementPolicy"] == "Parallel"
    assert spec["template"]["metadata"]["labels"] == {
        "quartermaster.io/inference": service.name,
        "quartermaster.io/workload-class": "inference",
    }
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    assert container["image"] == SERVING_IMAGE
    assert container["command"] == ["serve", "--port=8080"]
    # The queue covers only GPUs, so only the GPU is requested: 1 per replica (the default).
    assert container["resources"] == {
        "requests": {"nvidia.com/gpu": "1"},
        "limits": {"nvidia.com/gpu": "1"},
    }
    assert pod["restartPolicy"] == "Always"
    assert container["securityContext"]["runAsNonRoot"] is True
    assert front["kind"] == "Service"
    assert front["spec"]["selector"] == {"quartermaster.io/inference": service.name}
    assert "kueue.x-k8s.io/queue-name" not in front["metadata"]["labels"]
