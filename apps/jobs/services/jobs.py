"""Every write to batch jobs: submit from a template, cancel, and status from the cluster."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from apps.jobs import fit
from apps.jobs.choices import JobEventKind, JobState, LimitedRole, TopologyMode
from apps.jobs.models import BatchJob, JobEvent, JobTemplate, NotebookImage, RoleTierLimit
from apps.jobs.services.common import (
    Principal,
    after_commit,
    audit,
    can_manage,
    check_acts_for,
    job_to_submit,
    job_to_tear_down,
    new_name,
    portal_url,
    queue_ceiling,
    resolve_namespace,
    resolve_team,
    sweep_to_release,
)
from apps.jobs.services.counting import counted
from apps.jobs.services.idempotency import Idempotency, Submission
from apps.jobs.status import WorkLost, work_lost
from apps.notifications.choices import NotificationKind
from apps.notifications.services import notify
from apps.queues.models import Membership, PriorityTier, Queue
from core import permissions
from core.audit import AuditAction
from core.dates import clamped
from core.errors import NotAllowed, RuleBroken

MAX_PODS = 64
MAX_COMMAND_ARGS = 64
MAX_RUNTIME_MINUTES = 7 * 24 * 60
_PATH_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
NON_GPU = ("cpu", "memory", "ephemeral-storage", "pods")


@dataclass(frozen=True)
class JobRequest:
    template: str
    flavor: str
    gpus_per_pod: int = 1
    pods: int = 1
    priority_tier: str = ""
    max_runtime_minutes: int = 60
    command: tuple[str, ...] | None = None
    image: str = ""
    checkpoint_dir: str = ""
    checkpoint_interval_minutes: int | None = None
    team: str = ""
    namespace: str = ""
    queue: str = ""
    display_name: str = ""
    sim_duration_seconds: int | None = None
    # One of the flavor's topology level names ("rack"): all pods in one such domain.
    topology: str = ""
    topology_mode: str = ""
    extra: dict = field(default_factory=dict)


def _queue(team, name: str) -> Queue:
    queues = Queue.objects.filter(team=team).prefetch_related("quotas__flavor")
    queue = queues.filter(name=name).first() if name else queues.first()
    if queue is None:
        raise RuleBroken(
            f"team {team} has no queue {name!r}".strip(), code="flavor_not_in_queue", field="queue"
        )
    return queue


def queue_gpu_resource(queue: Queue, flavor: str) -> tuple[str, list[str]]:
    """The GPU resource the queue has quota for on ``flavor``, and every covered resource."""
    covered = sorted({q.resource for q in queue.quotas.all()})
    gpu = [
        q.resource
        for q in queue.quotas.all()
        if q.flavor.name == flavor and q.resource not in NON_GPU
    ]
    if not gpu:
        raise RuleBroken(
            f"queue {queue} has no GPU quota on {flavor!r}",
            code="flavor_not_in_queue",
            field="flavor",
        )
    return gpu[0], covered


def submittable_flavors(user) -> dict[str, list[str]]:
    """Per team of ``user``, the flavors a job may ask for: GPU quota in the team's queue.

    The queue is the one a submission without a queue name goes to (``_queue``), and the
    order is Kueue's: the queue's flavor order.
    """
    teams = Membership.objects.filter(user=user).select_related("team").order_by("team__slug")
    offered = {}
    for membership in teams:
        queue = (
            Queue.objects.filter(team=membership.team).prefetch_related("quotas__flavor").first()
        )
        names = (
            [q.flavor.name for q in queue.quotas.all() if q.resource not in NON_GPU]
            if queue
            else []
        )
        offered[membership.team.slug] = list(dict.fromkeys(names))
    return offered


def allowed_tiers(user, team) -> list[PriorityTier]:
    """Tiers ``user`` may submit batch at in ``team``: up to their role's limit; admins
    any but the tiers reserved for inference services."""
    tiers = list(PriorityTier.objects.filter(inference_only=False).order_by("value"))
    if permissions.is_admin(user) or not tiers:
        return tiers
    role = LimitedRole.LEAD if permissions.is_lead_of(user, team) else LimitedRole.SCIENTIST
    limit = RoleTierLimit.objects.filter(role=role).select_related("max_tier").first()
    ceiling = limit.max_tier.value if limit else tiers[0].value
    return [t for t in tiers if t.value <= ceiling]


def _tier(user, team, name: str) -> PriorityTier:
    allowed = allowed_tiers(user, team)
    if not name:
        if not allowed:
            raise NotAllowed("no priority tier is configured", code="tier_not_allowed")
        return allowed[0]
    tier = next((t for t in allowed if t.name == name), None)
    if tier is None:
        if PriorityTier.objects.filter(name=name, inference_only=True).exists():
            lower = f", e.g. {allowed[-1].name}" if allowed else ""
            raise RuleBroken(
                f"tier {name!r} is reserved for inference services; a batch job takes a "
                f"lower tier{lower}",
                code="invalid",
                field="priority_tier",
            )
        if PriorityTier.objects.filter(name=name).exists():
            raise NotAllowed(
                f"you may not submit at tier {name!r}",
                code="tier_not_allowed",
                field="priority_tier",
            )
        raise RuleBroken(f"no tier {name!r}", code="invalid", field="priority_tier")
    return tier


def _check_shape(spec: JobRequest, template: JobTemplate) -> None:
    if not 1 <= spec.gpus_per_pod <= template.max_gpus_per_pod:
        raise RuleBroken(
            f"gpus_per_pod must be 1–{template.max_gpus_per_pod}",
            code="invalid",
            field="gpus_per_pod",
        )
    if not 1 <= spec.pods <= MAX_PODS:
        raise RuleBroken(f"pods must be 1–{MAX_PODS}", code="invalid", field="pods")
    if not 1 <= spec.max_runtime_minutes <= MAX_RUNTIME_MINUTES:
        raise RuleBroken(
            f"max_runtime_minutes must be 1–{MAX_RUNTIME_MINUTES}",
            code="invalid",
            field="max_runtime_minutes",
        )
    command = spec.command or ()
    if len(command) > MAX_COMMAND_ARGS or any(
        not isinstance(a, str) or len(a) > 4096 for a in command
    ):
        raise RuleBroken(
            f"command is a list of at most {MAX_COMMAND_ARGS} strings",
            code="invalid",
            field="command",
        )
    parts = spec.checkpoint_dir.split("/") if spec.checkpoint_dir else []
    if len(spec.checkpoint_dir) > 200 or any(not _PATH_PART.match(p) for p in parts):
        raise RuleBroken(
            "checkpoint_dir is a relative path of plain names",
            code="invalid",
            field="checkpoint_dir",
        )
    interval = spec.checkpoint_interval_minutes
    if interval is not None and not 1 <= interval <= MAX_RUNTIME_MINUTES:
        raise RuleBroken(
            "checkpoint_interval_minutes must be at least 1",
            code="invalid",
            field="checkpoint_interval_minutes",
        )


def _check_ever_fits(spec: JobRequest, queue: Queue, gpu_resource: str) -> None:
    """Refuse a gang Kueue would leave pending forever ("ExceedsMaxQuota")."""
    ceiling = queue_ceiling(queue.name, spec.flavor, gpu_resource)
    total = spec.gpus_per_pod * spec.pods
    if total <= ceiling.limit:
        return
    why = fit.explain(ceiling, queue=queue.name, flavor=spec.flavor)
    if spec.gpus_per_pod > ceiling.limit:
        asks, field_name = f"{spec.gpus_per_pod} GPUs of {spec.flavor} per pod", "gpus_per_pod"
    else:
        asks, field_name = f"{total} GPUs of {spec.flavor} in total", "pods"
    change = (
        f"ask for at most {ceiling.limit} GPUs of {spec.flavor} in total, or for more quota on "
        f"queue {queue.name} (a larger nominal quota or borrowing limit)"
    )
    raise RuleBroken(
        f"asks for {asks}; {why}, so it would never start; {change}",
        code="never_fits",
        field=field_name,
    )


def _check_topology(spec: JobRequest, flavor) -> str:
    """The topology mode to save: '' without a level, else required unless preferred."""
    if not spec.topology:
        if spec.topology_mode:
            raise RuleBroken(
                "topology_mode needs a topology level, e.g. topology=rack",
                code="invalid",
                field="topology_mode",
            )
        return ""
    names = [level["name"] for level in flavor.topology_levels or []]
    if spec.topology not in names:
        offered = f"one of {', '.join(names)}" if names else "empty: it has no topology levels"
        raise RuleBroken(
            f"flavor {flavor.name} has no topology level {spec.topology!r}; topology must be "
            f"{offered}",
            code="invalid",
            field="topology",
        )
    if spec.topology_mode not in ("", *TopologyMode.values):
        raise RuleBroken(
            f"topology_mode must be one of {', '.join(TopologyMode.values)}",
            code="invalid",
            field="topology_mode",
        )
    return spec.topology_mode or TopologyMode.REQUIRED


def _image(spec: JobRequest, template: JobTemplate) -> str:
    if not spec.image or spec.image == template.image:
        return template.image
    if not NotebookImage.objects.filter(image=spec.image, is_enabled=True).exists():
        raise RuleBroken(
            f"image {spec.image!r} is not on the allow-list",
            code="image_not_allowed",
            field="image",
        )
    return spec.image


def submit_job(
    user,
    spec: JobRequest,
    *,
    actor: Principal,
    idempotency_key: str = "",
    now: datetime | None = None,
) -> Submission[BatchJob]:
    """Save the job; the suspended Job is created after commit (``submit_job_task``).

    A retry with the same ``idempotency_key`` and body returns the first job. Each
    outcome is counted on ``qm_job_requests_total`` (``services.counting``).
    """
    return counted(
        "job",
        lambda: _submit_job(user, spec, actor=actor, idempotency_key=idempotency_key, now=now),
    )


def build_job(user, spec: JobRequest, *, actor: Principal, now: datetime) -> BatchJob:
    """The job ``spec`` asks for, checked by every submission rule but not saved.

    The submission saves it; a quote (``services.quotes``) renders it and asks the
    admission model what Kueue would do with it.
    """
    team = resolve_team(user, spec.team)
    check_acts_for(actor, user, team)
    namespace = resolve_namespace(team, spec.namespace)
    template = JobTemplate.objects.filter(name=spec.template, is_enabled=True).first()
    if template is None:
        raise RuleBroken(
            f"no template {spec.template!r}", code="template_not_found", field="template"
        )
    _check_shape(spec, template)
    image = _image(spec, template)
    queue = _queue(team, spec.queue)
    gpu_resource, covered = queue_gpu_resource(queue, spec.flavor)
    _check_ever_fits(spec, queue, gpu_resource)
    tier = _tier(user, team, spec.priority_tier)
    flavor = next(q.flavor for q in queue.quotas.all() if q.flavor.name == spec.flavor)
    topology_mode = _check_topology(spec, flavor)
    interval = spec.checkpoint_interval_minutes
    return BatchJob(
        owner=user,
        team=team,
        queue=queue,
        namespace=namespace,
        name=new_name("job"),
        display_name=spec.display_name[:100],
        template=template,
        image=image,
        command=list(spec.command or template.default_command),
        flavor=flavor,
        gpu_resource=gpu_resource,
        gpus_per_pod=spec.gpus_per_pod,
        pods=spec.pods,
        # Kueue blocks resources its queue does not cover, so only covered ones are requested.
        cpu=template.cpu_per_pod if "cpu" in covered else "",
        memory=template.memory_per_pod if "memory" in covered else "",
        priority_tier=tier,
        max_runtime_seconds=spec.max_runtime_minutes * 60,
        checkpoint_dir=spec.checkpoint_dir,
        checkpoint_interval_seconds=interval * 60 if interval else None,
        sim_duration_seconds=spec.sim_duration_seconds,
        topology_level=spec.topology,
        topology_mode=topology_mode,
        created_at=now,
    )


@transaction.atomic
def _submit_job(
    user, spec: JobRequest, *, actor: Principal, idempotency_key: str, now: datetime | None
) -> Submission[BatchJob]:
    now = now or timezone.now()
    once = Idempotency.of(BatchJob, idempotency_key, owner=user, spec=spec, actor=actor)
    if (replayed := once.replay()) is not None:
        return replayed
    job = build_job(user, spec, actor=actor, now=now)
    submission = once.insert(job)
    if submission.replayed:
        return submission
    JobEvent.objects.create(job=job, at=now, kind=JobEventKind.SUBMITTED, key="submitted")
    audit(
        actor,
        AuditAction.CREATE,
        job,
        reason="batch job submitted",
        after={"gpus": job.total_gpus, "flavor": job.flavor.name, "tier": job.priority_tier.name},
    )
    after_commit(job_to_submit, job.pk)
    return submission


@transaction.atomic
def cancel_job(job: BatchJob, *, actor: Principal, now: datetime | None = None) -> bool:
    """Cancel and delete the Job; False if it had already ended."""
    now = now or timezone.now()
    if actor.user is not None and not can_manage(actor.user, job):
        raise NotAllowed("you may not cancel this job")
    # Race: the job finishes (sync) while it is cancelled; one conditional UPDATE wins.
    updated = (
        BatchJob.objects.active()
        .filter(pk=job.pk)
        .update(
            state=JobState.CANCELLED,
            ended_at=now,
            queue_position=None,
            version=F("version") + 1,
            state_reason=f"cancelled by {actor.user or 'the system'}",
        )
    )
    if not updated:
        return False
    job.refresh_from_db()
    JobEvent.objects.create(
        job=job, at=now, kind=JobEventKind.CANCELLED, key="cancelled", message=job.state_reason
    )
    audit(actor, AuditAction.DELETE, job, reason="batch job cancelled")
    after_commit(job_to_tear_down, job.pk)
    _trial_ended(job.sweep_id)
    return True


def _trial_ended(sweep_id: int | None) -> None:
    """A sweep's trial ended: the sweep may release its next (``services.sweeps``)."""
    if sweep_id is not None:
        after_commit(sweep_to_release, sweep_id)


@transaction.atomic
def refuse_job(job_id: int, *, reason: str, now: datetime) -> bool:
    """SUBMITTED → FAILED without creating anything: its Job may not be created there."""
    refused = BatchJob.objects.filter(pk=job_id, state=JobState.SUBMITTED).update(
        state=JobState.FAILED,
        state_reason=reason,
        ended_at=now,
        queue_position=None,
        version=F("version") + 1,
    )
    if refused:
        _trial_ended(BatchJob.objects.filter(pk=job_id).values_list("sweep_id", flat=True)[0])
    return bool(refused)


def mark_job_created(job_id: int) -> bool:
    return bool(
        BatchJob.objects.filter(pk=job_id, state=JobState.SUBMITTED).update(
            state=JobState.QUEUED, version=F("version") + 1
        )
    )


LOSS_SINCE = {
    "checkpoint": "since its last checkpoint",
    "admission": "since it was admitted (it reported no checkpoint)",
}


def _tell_preempted(job: BatchJob, event: JobEvent, loss: WorkLost | None) -> None:
    """Tell the owner, once per preemption (the event key is the eviction's time)."""
    lost = (
        "an unknown amount of work"
        if loss is None
        else f"about {round(loss.seconds / 60)} min of work {LOSS_SINCE[loss.since]}"
    )
    context = {
        "job": job.display_name or job.name,
        "queue": job.queue.name,
        "preempted_by": event.preemptor or "a higher-priority workload",
        "reason": event.reason or "preempted",
        "lost": lost,
        "url": portal_url(reverse("jobs:job", args=[job.pk])),
    }
    notify(
        job.owner,
        NotificationKind.JOB_PREEMPTED,
        context,
        dedupe_key=f"job-preempted:{job.pk}:{event.key}",
    )


def _narrowed(event: JobEvent, loss: WorkLost | None) -> bool:
    """Whether a checkpoint is now known for a preemption recorded without one: the
    stopped pods' termination messages arrive after the eviction was recorded."""
    return loss is not None and loss.since == "checkpoint" and event.lost_since != "checkpoint"


def _narrow_loss(job: BatchJob, event: JobEvent, loss: WorkLost) -> int:
    """Record the loss since that checkpoint; returns the change in lost seconds."""
    before = event.lost_gpu_minutes
    old_seconds = 0 if before is None else round(before * 60 / job.total_gpus)
    JobEvent.objects.filter(pk=event.pk).update(
        lost_gpu_minutes=Decimal(loss.seconds * job.total_gpus) / 60, lost_since=loss.since
    )
    return loss.seconds - old_seconds


def _admitted_before(job: BatchJob, at: datetime) -> datetime | None:
    """When the run a preemption at ``at`` ended began (its latest admission)."""
    admitted = job.events.filter(kind=JobEventKind.ADMITTED, at__lte=at).order_by("-at")
    return admitted.values_list("at", flat=True).first()


@dataclass(frozen=True)
class JobStatus:
    state: str
    reason: str = ""
    pending_reason: str = ""
    position: int | None = None
    workload_name: str = ""
    history: tuple = ()
    last_checkpoint: datetime | None = None  # as the job reports it on its Workload


@transaction.atomic
def apply_job_status(job: BatchJob, status: JobStatus, *, now: datetime) -> bool:
    """Record state and new history entries, unless the job changed since it was read."""
    lost_total = job.lost_work_seconds
    for entry in status.history:
        loss = None
        if entry.kind == JobEventKind.PREEMPTED:
            loss = work_lost(entry.at, _admitted_before(job, entry.at), status.last_checkpoint)
        lost = None if loss is None else Decimal(loss.seconds * job.total_gpus) / 60
        event, created = JobEvent.objects.get_or_create(
            job=job,
            key=entry.key,
            defaults={
                # Kubernetes stamps conditions to the second, on the cluster's clock: nothing
                # happened before submission, nor after the read that saw it.
                "at": clamped(entry.at, earliest=job.created_at, latest=now),
                "kind": entry.kind,
                "reason": entry.reason,
                "message": entry.message[:2000],
                "preemptor": entry.preemptor,
                "lost_gpu_minutes": lost,
                "lost_since": loss.since if loss else "",
            },
        )
        if created and entry.kind == JobEventKind.PREEMPTED:
            lost_total += loss.seconds if loss else 0
            _tell_preempted(job, event, loss)
        elif entry.kind == JobEventKind.PREEMPTED and _narrowed(event, loss):
            lost_total += _narrow_loss(job, event, loss)
    values = {
        "state": status.state,
        "state_reason": status.reason,
        "pending_reason": status.pending_reason,
        "queue_position": status.position,
        "workload_name": status.workload_name or job.workload_name,
        "synced_at": now,
    }
    if lost_total != job.lost_work_seconds:
        values["lost_work_seconds"] = lost_total
    if status.state in (JobState.ADMITTED, JobState.RUNNING) and job.admitted_at is None:
        values["admitted_at"] = now
    if status.state in JobState.terminal_values():
        values["ended_at"] = now
        values["queue_position"] = None
    # Race: a cancel between our read and this write must stay cancelled.
    written = (
        BatchJob.objects.followed()
        .filter(pk=job.pk, version=job.version)
        .update(**values, version=F("version") + 1)
    )
    if written and status.state in JobState.terminal_values():
        _trial_ended(job.sweep_id)
    return bool(written)
