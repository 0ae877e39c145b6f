"""An inference service's manifests as a pure function: a saved row in, dicts out.

A StatefulSet under Kueue's ``statefulset`` integration: Kueue admits all its replicas
as one pod group, so a service is either wholly admitted or wholly waiting
(docs/inference.md). A Service in front spreads requests over the ready replicas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apps.jobs.manifests import (
    OWNER_LABEL,
    PRIORITY_LABEL,
    QUEUE_LABEL,
    pod_spec,
    resources,
    scratch_volumes,
)
from apps.queues.kueue import MANAGED_BY, MANAGER, TEAM_LABEL

if TYPE_CHECKING:
    from apps.jobs.models import InferenceService

INFERENCE_LABEL = "quartermaster.io/inference"
# Which of the three classes (interactive, inference, batch) a workload is in, on the
# StatefulSet and on its pods (so on the pod set Kueue copies into the Workload).
CLASS_LABEL = "quartermaster.io/workload-class"
INFERENCE_CLASS = "inference"
SERVING_PORT = 8080
SERVICE_PORT = 80
# A replica gets this long to drain requests when stopped.
DRAIN_SECONDS = 30


def render_inference(service: InferenceService) -> list[dict]:
    """The StatefulSet and Service of ``service`` (fetched with team, owner, queue, tier
    and flavor)."""
    selector = {INFERENCE_LABEL: service.name}
    pod_labels = {**selector, CLASS_LABEL: INFERENCE_CLASS}
    labels = {
        MANAGED_BY: MANAGER,
        TEAM_LABEL: service.team.slug,
        OWNER_LABEL: service.owner.get_username(),
        **pod_labels,
    }
    kueue_labels = {QUEUE_LABEL: service.queue.name, PRIORITY_LABEL: service.priority_tier.name}
    statefulset = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": _meta(service, {**labels, **kueue_labels}),
        "spec": {
            "replicas": service.replicas,
            "serviceName": service.name,
            # All replicas are created at once: Kueue admits them as one group, and an
            # ordered start would leave replica 1 waiting on replica 0's readiness.
            "podManagementPolicy": "Parallel",
            "selector": {"matchLabels": selector},
            "template": {"metadata": {"labels": pod_labels}, "spec": _pod(service)},
        },
    }
    service_object = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(service, labels),
        "spec": {
            "type": "ClusterIP",
            "selector": selector,
            "ports": [{"name": "http", "port": SERVICE_PORT, "targetPort": SERVING_PORT}],
        },
    }
    return [statefulset, service_object]


def _meta(service: InferenceService, labels: dict) -> dict:
    return {"name": service.name, "namespace": service.namespace, "labels": labels}


def _pod(service: InferenceService) -> dict:
    requests = {k: v for k, v in (("cpu", service.cpu), ("memory", service.memory)) if v}
    requests[service.gpu_resource] = str(service.gpus_per_replica)
    container = {
        "name": "server",
        "image": service.image,
        "ports": [{"name": "http", "containerPort": SERVING_PORT}],
        "resources": resources(requests),
        "readinessProbe": {"tcpSocket": {"port": SERVING_PORT}},
        "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
    }
    if service.command:
        container["command"] = list(service.command)
    return pod_spec(
        container,
        scratch_volumes("tmp"),
        grace=DRAIN_SECONDS,
        restart="Always",
        node_selector=dict(service.flavor.node_labels or {}),
    )
