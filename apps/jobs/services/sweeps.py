"""Every write to sweeps: submit, release trials up to the user's limit, cancel the rest,
retry the failed ones, and the team's per-user limit.

The portal, not Kueue, keeps a user's sweep within its limit: Kueue caps a queue, not a
user, so trials beyond the limit get no Job (nor Workload) until a held trial ends
(docs/sweeps.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from datetime import datetime

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from apps.jobs.choices import JobEventKind, JobState, SweepState
from apps.jobs.models import BatchJob, JobEvent, Sweep, SweepLimit
from apps.jobs.services.common import SYSTEM, Principal, after_commit, audit, job_to_submit
from apps.jobs.services.idempotency import Idempotency, Submission
from apps.jobs.services.jobs import MAX_COMMAND_ARGS, JobRequest, build_job, cancel_job
from apps.jobs.trials import expand_trials, trial_command
from apps.queues.models import Membership, Team
from core import permissions
from core.audit import AuditAction, record_audit
from core.errors import DomainError, NotAllowed, RuleBroken

MAX_LIMIT = 100


@dataclass(frozen=True)
class SweepRequest:
    """A job request run once per trial: ``parameters`` (a list) or ``grid`` (a dict)."""

    job: JobRequest
    parameters: list | None = None
    grid: dict | None = None
    concurrency_limit: int | None = None


def sweep_limit(team: Team) -> SweepLimit:
    """The team's limits, or the defaults (unsaved) when nobody has set them."""
    return SweepLimit.objects.filter(team=team).first() or SweepLimit(team=team)


@transaction.atomic
def submit_sweep(
    user, request: SweepRequest, *, actor: Principal, idempotency_key: str = "", now=None
) -> Submission[Sweep]:
    """Check the sweep by every job rule, save it and release its first trials.

    A retry with the same ``idempotency_key`` and body returns the first sweep, as for
    a job: one key per requester.
    """
    now = now or timezone.now()
    once = Idempotency.of(Sweep, idempotency_key, owner=user, spec=request, actor=actor)
    if (replayed := once.replay()) is not None:
        return replayed
    trials = expand_trials(request.parameters, request.grid)
    first = build_job(user, request.job, actor=actor, now=now)  # every trial shares these
    widest = max(len(t) for t in trials)
    if len(first.command) + widest > MAX_COMMAND_ARGS:
        raise RuleBroken(
            f"the command and a trial's --name=value arguments are at most {MAX_COMMAND_ARGS} "
            f"together; the base command has {len(first.command)} and a trial adds {widest}",
            code="invalid",
            field="parameters" if request.grid is None else "grid",
        )
    team_limit = sweep_limit(first.team).per_user
    # None: not given (the team's limit); 0 is given, and refused below.
    limit = team_limit if request.concurrency_limit is None else request.concurrency_limit
    if not 1 <= limit <= team_limit:
        raise RuleBroken(
            f"concurrency_limit must be 1–{team_limit} (team {first.team}'s limit per user), "
            f"e.g. {team_limit}",
            code="invalid",
            field="concurrency_limit",
        )
    # What the submission resolved (team, namespace, queue, tier, base command) is kept,
    # so every trial is submitted alike, even released days later.
    job_spec = asdict(
        replace(
            request.job,
            command=tuple(first.command),
            team=first.team.slug,
            namespace=first.namespace,
            queue=first.queue.name,
            priority_tier=first.priority_tier.name,
        )
    )
    submission = once.insert(
        Sweep(
            owner=user,
            team=first.team,
            template=first.template,
            display_name=request.job.display_name[:100],
            job_spec=job_spec,
            trials=trials,
            concurrency_limit=limit,
            created_at=now,
        )
    )
    if submission.replayed:
        return submission
    sweep = submission.record
    audit(
        actor,
        AuditAction.CREATE,
        sweep,
        reason="sweep submitted",
        after={"trials": len(trials), "limit": limit, "tier": first.priority_tier.name},
    )
    release_trials(sweep.pk, now=now)
    return submission


def _lock_owner(sweep: Sweep) -> bool:
    """Lock the owner's membership of the sweep's team; False if they are no longer in it.

    Race: two workers release trials of one user at once (trials of two of their sweeps
    ending together, or a submission beside a release); each would count the same held
    trials and together exceed the user's limit. Every release and cancel for one user
    and team takes this one row lock first, so they count one after the other.
    """
    membership = Membership.objects.select_for_update().filter(
        user_id=sweep.owner_id, team_id=sweep.team_id
    )
    return membership.exists()


@transaction.atomic
def release_trials(sweep_id: int, *, now: datetime | None = None) -> int:
    """Create the next trials while the sweep and its owner are under their limits.

    Safe to run twice, late, or in two workers at once; returns how many it released.
    """
    now = now or timezone.now()
    sweep = Sweep.objects.select_related("team", "owner").filter(pk=sweep_id).first()
    if sweep is None:
        return 0
    owner_in_team = _lock_owner(sweep)
    # Read after the lock: a cancel or a retry may have won.
    sweep.refresh_from_db(fields=["state", "retry_queue"])
    if sweep.state != SweepState.OPEN:
        return 0
    if not owner_in_team:
        _end(sweep, SweepState.FAILED, f"{sweep.owner} is no longer a member of {sweep.team}", now)
        return 0
    trials = BatchJob.objects.filter(sweep=sweep)
    released, held = trials.filter(attempt=1).count(), trials.active().count()
    held_by_owner = (
        BatchJob.objects.active().filter(sweep__owner=sweep.owner, sweep__team=sweep.team).count()
    )
    room = min(
        sweep.concurrency_limit - held,
        sweep_limit(sweep.team).per_user - held_by_owner,
    )
    # Retried trials first: they were submitted before the ones never released.
    queued = [*sweep.retry_queue, *range(released, sweep.trial_count)]
    due, done = queued[: max(room, 0)], []
    for index in due:
        try:
            _release(sweep, index, now)
        except DomainError as exc:  # the owner may no longer submit this (tier, template…)
            _end(sweep, SweepState.FAILED, f"trial {index + 1} was refused: {exc.detail}", now)
            break
        done.append(index)
    if sweep.retry_queue and done:
        sweep.retry_queue = [i for i in sweep.retry_queue if i not in done]
        sweep.save(update_fields=["retry_queue"])
    if len(done) == len(queued) and held + len(done) == 0:
        _end(sweep, SweepState.DONE, "every trial ended", now)
    return len(done)


def _release(sweep: Sweep, index: int, now: datetime) -> BatchJob:
    spec = JobRequest(**sweep.job_spec)
    attempt = 1 + (
        BatchJob.objects.filter(sweep=sweep, trial_index=index).aggregate(n=Max("attempt"))["n"]
        or 0
    )
    run = "" if attempt == 1 else f" (run {attempt})"
    spec = replace(
        spec,
        command=tuple(trial_command(spec.command, sweep.trials[index])),
        display_name=f"{sweep} #{index + 1}{run}"[:100],
    )
    owner = Principal(sweep.owner)
    job = build_job(sweep.owner, spec, actor=owner, now=now)
    job.requested_by, job.sweep, job.trial_index, job.attempt = sweep.owner, sweep, index, attempt
    job.save(force_insert=True)
    JobEvent.objects.create(job=job, at=now, kind=JobEventKind.SUBMITTED, key="submitted")
    audit(owner, AuditAction.CREATE, job, reason=f"trial {index + 1} of sweep {sweep.pk}{run}")
    after_commit(job_to_submit, job.pk)
    return job


def _end(sweep: Sweep, state: str, reason: str, now: datetime) -> None:
    Sweep.objects.filter(pk=sweep.pk, state=SweepState.OPEN).update(
        state=state, state_reason=reason, ended_at=now
    )


def can_steer(user, sweep: Sweep) -> bool:
    """Who may cancel a sweep or retry its failed trials: the owner, a lead of its team,
    or an admin."""
    return (
        sweep.owner_id == user.pk
        or permissions.is_admin(user)
        or permissions.is_lead_of(user, sweep.team)
    )


@transaction.atomic
def cancel_sweep(sweep: Sweep, *, actor: Principal, now: datetime | None = None) -> int:
    """Release nothing more and cancel the trials not ended; returns how many it cancelled."""
    now = now or timezone.now()
    if actor.user is not None and not can_steer(actor.user, sweep):
        raise NotAllowed("you may not cancel this sweep")
    _lock_owner(sweep)  # a release under way finishes first, then sees the cancel
    updated = Sweep.objects.filter(pk=sweep.pk, state=SweepState.OPEN).update(
        state=SweepState.CANCELLED,
        ended_at=now,
        state_reason=f"cancelled by {actor.user or 'the system'}",
    )
    cancelled = 0
    for job in BatchJob.objects.active().filter(sweep=sweep).order_by("pk"):
        cancelled += cancel_job(job, actor=SYSTEM if actor.user is None else actor, now=now)
    if updated:
        audit(actor, AuditAction.DELETE, sweep, reason="sweep cancelled")
    sweep.refresh_from_db()
    return cancelled


@transaction.atomic
def retry_failed_trials(sweep: Sweep, *, actor: Principal, now: datetime | None = None) -> int:
    """Queue every trial whose latest run failed to run again, under the sweep's limits,
    and release what fits now; returns how many trials were queued.

    A sweep that ended (every trial ended, or a trial refused) is open again; a
    cancelled one is not retried: it was stopped on purpose.
    """
    now = now or timezone.now()
    if actor.user is not None and not can_steer(actor.user, sweep):
        raise NotAllowed("you may not retry this sweep's trials")
    _lock_owner(sweep)  # a release under way finishes first
    sweep = Sweep.objects.select_for_update().get(pk=sweep.pk)
    if sweep.state == SweepState.CANCELLED:
        raise RuleBroken(
            "a cancelled sweep's trials are not retried; submit the sweep again",
            code="invalid",
            field="state",
        )
    failed = sorted(
        index
        for index, job in sweep.latest_runs().items()
        if job.state == JobState.FAILED and index not in sweep.retry_queue
    )
    if not failed:
        raise RuleBroken(
            "no failed trial to retry: only a trial whose latest run failed runs again",
            code="invalid",
            field="trials",
        )
    sweep.retry_queue = [*sweep.retry_queue, *failed]
    sweep.state, sweep.state_reason, sweep.ended_at = SweepState.OPEN, "", None
    sweep.save(update_fields=["retry_queue", "state", "state_reason", "ended_at"])
    audit(
        actor,
        AuditAction.UPDATE,
        sweep,
        reason="failed trials retried",
        after={"trials": [i + 1 for i in failed]},
    )
    release_trials(sweep.pk, now=now)
    return len(failed)


@transaction.atomic
def set_sweep_limit(
    team: Team,
    *,
    actor,
    per_user: int | None = None,
    max_per_user: int | None = None,
) -> SweepLimit:
    """A lead sets ``per_user`` within the envelope's ``max_per_user``, which admins set.

    Lowering ``max_per_user`` below ``per_user`` lowers ``per_user`` with it. Trials
    already held are not cancelled by a lower limit: no more are released until the
    owner is under it.
    """
    is_admin = permissions.is_admin(actor)
    if max_per_user is not None and not is_admin:
        raise NotAllowed(
            "only platform admins set max_per_user (the team's envelope)",
            code="forbidden",
            field="max_per_user",
        )
    if not permissions.can_set_sweep_limit(actor, team):
        raise NotAllowed(f"only a lead of {team} or an admin sets its sweep limit")
    row = SweepLimit.objects.select_for_update().filter(team=team).first() or sweep_limit(team)
    before = {"per_user": row.per_user, "max_per_user": row.max_per_user}
    if max_per_user is not None:
        _check_range("max_per_user", max_per_user, MAX_LIMIT, "the most any team may have")
        row.max_per_user = max_per_user
        row.per_user = min(row.per_user, max_per_user)
    if per_user is not None:
        _check_range("per_user", per_user, row.max_per_user, "the team's envelope, max_per_user")
        row.per_user = per_user
    row.save()
    after = {"per_user": row.per_user, "max_per_user": row.max_per_user}
    if before != after:
        record_audit(
            actor=actor,
            action=AuditAction.UPDATE,
            obj=row,
            team=team,
            before=before,
            after=after,
            reason="sweep limit per user",
        )
    return row


def _check_range(field: str, value: int, most: int, what: str) -> None:
    if not 1 <= value <= most:
        raise RuleBroken(
            f"{field} must be 1–{most} ({what}), e.g. {min(2, most)}", code="invalid", field=field
        )
