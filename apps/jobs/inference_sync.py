"""Cluster side of inference services: create, delete, and read status back.

Like notebooks (``cluster_sync``): creates are idempotent, deletes tolerate absence,
and the status pass derives each followed service's state from one read.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from apps.jobs import cluster
from apps.jobs import status as st
from apps.jobs.choices import InferenceState
from apps.jobs.inference_manifest import INFERENCE_LABEL, render_inference
from apps.jobs.models import InferenceService
from apps.jobs.services.inference import (
    InferenceStatus,
    apply_inference_status,
    mark_inference_created,
)
from core.kube import KubeClient
from core.namespaces import is_protected, protected_error
from informer.objects import pod_ready

DELETED = "its cluster objects were deleted outside the portal"


def create_inference(client: KubeClient, service_id: int) -> str:
    service = InferenceService.objects.with_related().filter(pk=service_id).first()
    if service is None or service.state != InferenceState.REQUESTED:
        return "skipped"
    if refusal := protected_error(service.namespace):
        apply_inference_status(
            service, InferenceStatus(InferenceState.FAILED, refusal), now=timezone.now()
        )
        return "refused"
    cluster.create_all(client, render_inference(service))
    if not mark_inference_created(service.pk):
        _delete(client, service)  # stopped meanwhile
        return "stopped meanwhile"
    return "created"


def teardown_inference(client: KubeClient, service_id: int) -> str:
    service = InferenceService.objects.filter(pk=service_id).first()
    if service is None or service.is_active or is_protected(service.namespace):
        return "skipped"
    _delete(client, service)
    return "deleted"


def _delete(client: KubeClient, service: InferenceService) -> None:
    cluster.delete_inference(client, service.namespace, service.name)


def sync_inference(client: KubeClient, observed: cluster.Observed, *, now: datetime) -> int:
    """Record the state of every followed service; ``observed`` gives its Workloads."""
    services = list(InferenceService.objects.followed().select_related("flavor"))
    if not services:
        return 0
    statefulsets, pods = cluster.inference_objects(client, INFERENCE_LABEL)
    live = {(s["metadata"]["namespace"], s["metadata"]["name"]) for s in statefulsets}
    by_owner = st.index_workloads(observed.workloads)
    return sum(
        _record(service, live, pods, by_owner, observed.cluster_queues, now) for service in services
    )


def _record(service, live, pods, by_owner, cluster_queues, now) -> bool:
    if (service.namespace, service.name) not in live:
        status = InferenceStatus(InferenceState.FAILED, DELETED)
        return apply_inference_status(service, status, now=now)
    workload = by_owner.get((service.namespace, "StatefulSet", service.name))
    mine = st.pods_of(pods, service.namespace, INFERENCE_LABEL, service.name)
    phase = st.inference_phase(workload, mine, service.replicas)
    need = st.Need(service.flavor.name, service.gpu_resource, service.total_gpus)
    waiting = phase.state != InferenceState.SERVING
    status = InferenceStatus(
        state=phase.state,
        reason=phase.reason,
        pending_reason=st.pending_reason(workload, mine, cluster_queues, need) if waiting else "",
        workload_name=workload["metadata"]["name"] if workload else "",
        ready_replicas=sum(1 for p in mine if pod_ready(p)),
    )
    return apply_inference_status(service, status, now=now)
