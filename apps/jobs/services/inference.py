"""Every write to inference services: request, stop, and status from the cluster.

An inference service runs in one of its team's production queues (never borrows or
lends) at an inference-only tier, so batch can neither outrank nor reclaim it
(docs/inference.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apps.jobs import fit
from apps.jobs.choices import InferenceState
from apps.jobs.models import InferenceService, NotebookImage
from apps.jobs.services.common import (
    SYSTEM,
    Principal,
    after_commit,
    audit,
    can_manage,
    check_acts_for,
    inference_to_create,
    inference_to_tear_down,
    new_name,
    queue_ceiling,
    resolve_namespace,
    resolve_team,
)
from apps.jobs.services.idempotency import Idempotency, Submission
from apps.jobs.services.jobs import MAX_COMMAND_ARGS, NON_GPU, queue_gpu_resource
from apps.queues.models import PriorityTier, Queue, QuotaEntry
from core.audit import AuditAction
from core.errors import NotAllowed, RuleBroken

MAX_REPLICAS = 32
MAX_GPUS_PER_REPLICA = 8
# What each replica asks for besides GPUs, when its queue covers CPU and memory.
CPU_PER_REPLICA = "4"
MEMORY_PER_REPLICA = "32Gi"


@dataclass(frozen=True)
class InferenceRequest:
    flavor: str
    image: str
    replicas: int = 1
    gpus_per_replica: int = 1
    command: tuple[str, ...] = ()
    priority_tier: str = ""
    team: str = ""
    namespace: str = ""
    queue: str = ""
    display_name: str = ""


@transaction.atomic
def request_inference_service(
    user,
    spec: InferenceRequest,
    *,
    actor: Principal,
    idempotency_key: str = "",
    now: datetime | None = None,
) -> Submission[InferenceService]:
    """Save the service; its StatefulSet is created after commit (``create_inference_task``).

    A retry with the same ``idempotency_key`` and body returns the first service.
    """
    now = now or timezone.now()
    once = Idempotency.of(InferenceService, idempotency_key, owner=user, spec=spec, actor=actor)
    if (replayed := once.replay()) is not None:
        return replayed
    submission = once.insert(build_inference_service(user, spec, actor=actor, now=now))
    if submission.replayed:
        return submission
    service = submission.record
    audit(
        actor,
        AuditAction.CREATE,
        service,
        reason="inference service requested",
        after={"replicas": service.replicas, "gpus": service.total_gpus},
    )
    after_commit(inference_to_create, service.pk)
    return submission


def build_inference_service(user, spec: InferenceRequest, *, actor, now) -> InferenceService:
    """The service ``spec`` asks for, checked by every rule but not saved."""
    team = resolve_team(user, spec.team)
    check_acts_for(actor, user, team)
    namespace = resolve_namespace(team, spec.namespace)
    _check_shape(spec)
    _check_image(spec.image)
    queue = production_queue(team, spec.queue)
    gpu_resource, covered = queue_gpu_resource(queue, spec.flavor)
    _check_ever_fits(spec, queue, gpu_resource)
    flavor = next(q.flavor for q in queue.quotas.all() if q.flavor.name == spec.flavor)
    return InferenceService(
        owner=user,
        team=team,
        queue=queue,
        namespace=namespace,
        name=new_name("inf"),
        display_name=spec.display_name[:100],
        image=spec.image,
        command=list(spec.command),
        flavor=flavor,
        gpu_resource=gpu_resource,
        replicas=spec.replicas,
        gpus_per_replica=spec.gpus_per_replica,
        cpu=CPU_PER_REPLICA if "cpu" in covered else "",
        memory=MEMORY_PER_REPLICA if "memory" in covered else "",
        priority_tier=inference_tier(spec.priority_tier),
        created_at=now,
    )


def _check_shape(spec: InferenceRequest) -> None:
    if not isinstance(spec.replicas, int) or not 1 <= spec.replicas <= MAX_REPLICAS:
        raise RuleBroken(
            f"replicas must be 1–{MAX_REPLICAS}, e.g. 2", code="invalid", field="replicas"
        )
    if not isinstance(spec.gpus_per_replica, int) or not (
        1 <= spec.gpus_per_replica <= MAX_GPUS_PER_REPLICA
    ):
        raise RuleBroken(
            f"gpus_per_replica must be 1–{MAX_GPUS_PER_REPLICA}, e.g. 1",
            code="invalid",
            field="gpus_per_replica",
        )
    if len(spec.command) > MAX_COMMAND_ARGS or any(
        not isinstance(a, str) or len(a) > 4096 for a in spec.command
    ):
        raise RuleBroken(
            f'command is a list of at most {MAX_COMMAND_ARGS} strings, e.g. ["serve"]',
            code="invalid",
            field="command",
        )


def _check_image(image: str) -> None:
    if not NotebookImage.objects.filter(image=image, is_enabled=True).exists():
        raise RuleBroken(
            f"image {image!r} is not on the allow-list", code="image_not_allowed", field="image"
        )


def production_flavors(user) -> dict[str, list[str]]:
    """Per team of ``user``, the flavors its production queues have GPU quota for."""
    quotas = QuotaEntry.objects.filter(
        queue__production=True, queue__team__memberships__user=user
    ).exclude(resource__in=NON_GPU)
    offered: dict[str, list[str]] = {}
    rows = quotas.order_by("queue__team__slug", "queue__name", "rank")
    for team, flavor in rows.values_list("queue__team__slug", "flavor__name"):
        offered.setdefault(team, [])
        if flavor not in offered[team]:
            offered[team].append(flavor)
    return offered


def production_queue(team, name: str) -> Queue:
    """The team's production queue named ``name`` (or its first one)."""
    queues = Queue.objects.filter(team=team).prefetch_related("quotas__flavor")
    production = queues.filter(production=True)
    queue = production.filter(name=name).first() if name else production.first()
    if queue is not None:
        return queue
    example = production.first()
    hint = f", e.g. {example.name}" if example else "; ask an admin for one"
    if name and queues.filter(name=name).exists():
        problem = f"queue {name!r} is not a production queue"
    else:
        problem = f"team {team} has no production queue {name!r}".replace(" ''", "")
    raise RuleBroken(
        f"{problem}: an inference service runs in a production queue (one that never "
        f"borrows or lends){hint}",
        code="invalid",
        field="queue",
    )


def inference_tier(name: str) -> PriorityTier:
    """The inference-only tier named (or the highest): batch never runs at these."""
    tiers = PriorityTier.objects.filter(inference_only=True).order_by("-value")
    tier = tiers.filter(name=name).first() if name else tiers.first()
    if tier is not None:
        return tier
    example = tiers.first()
    hint = f", e.g. {example.name}" if example else "; an admin marks one inference-only"
    raise RuleBroken(
        f"an inference service runs at an inference-only tier{hint}",
        code="invalid",
        field="priority_tier",
    )


def _check_ever_fits(spec: InferenceRequest, queue: Queue, gpu_resource: str) -> None:
    """Refuse a pod group Kueue would leave pending forever ("ExceedsMaxQuota")."""
    ceiling = queue_ceiling(queue.name, spec.flavor, gpu_resource)
    total = spec.replicas * spec.gpus_per_replica
    if total <= ceiling.limit:
        return
    why = fit.explain(ceiling, queue=queue.name, flavor=spec.flavor)
    raise RuleBroken(
        f"asks for {total} GPUs of {spec.flavor} in total; {why}, so it would never start; "
        f"ask for at most {ceiling.limit}",
        code="never_fits",
        field="replicas",
    )


@transaction.atomic
def stop_inference_service(
    service: InferenceService, *, actor: Principal, now: datetime | None = None
) -> bool:
    """Stop serving and delete its objects; False if it had already ended."""
    now = now or timezone.now()
    if actor.user is not None and not can_manage(actor.user, service):
        raise NotAllowed("you may not stop this inference service")
    reason = f"stopped by {actor.user or 'the system'}"
    return _end(service, InferenceState.STOPPED, reason, actor=actor, now=now)


def _end(service, state: str, reason: str, *, actor: Principal, now: datetime) -> bool:
    # Race: a stop and a status read that finds it gone; one conditional UPDATE wins.
    updated = (
        InferenceService.objects.active()
        .filter(pk=service.pk)
        .update(
            state=state,
            state_reason=reason,
            ended_at=now,
            queue_position=None,
            version=F("version") + 1,
        )
    )
    if not updated:
        return False
    audit(actor, AuditAction.DELETE, service, reason=f"inference service {state}: {reason}")
    after_commit(inference_to_tear_down, service.pk)
    return True


def mark_inference_created(service_id: int) -> bool:
    """REQUESTED → QUEUED once the cluster objects exist; False if it was stopped meanwhile."""
    rows = InferenceService.objects.filter(pk=service_id, state=InferenceState.REQUESTED)
    return bool(rows.update(state=InferenceState.QUEUED, version=F("version") + 1))


@dataclass(frozen=True)
class InferenceStatus:
    state: str
    reason: str = ""
    pending_reason: str = ""
    position: int | None = None
    workload_name: str = ""
    ready_replicas: int = 0


def apply_inference_status(
    service: InferenceService, status: InferenceStatus, *, now: datetime
) -> bool:
    """Record what the cluster says, unless the service changed since it was read."""
    if status.state == InferenceState.FAILED:
        with transaction.atomic():
            return _end(service, status.state, status.reason, actor=SYSTEM, now=now)
    values = {
        "state": status.state,
        "state_reason": status.reason,
        "pending_reason": status.pending_reason,
        "queue_position": status.position,
        "workload_name": status.workload_name or service.workload_name,
        "ready_replicas": status.ready_replicas,
    }
    if status.state == InferenceState.SERVING and service.serving_since is None:
        values["serving_since"] = now
    rows = InferenceService.objects.followed().filter(pk=service.pk, version=service.version)
    if all(getattr(service, k) == v for k, v in values.items()):
        rows.update(synced_at=now)
        return False
    return bool(rows.update(**values, synced_at=now, version=F("version") + 1))
