"""Every write of the what-if domain. Views, API and tasks call these."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.dispatch import Signal
from django.utils import timezone

from apps.queues import services as queue_services
from apps.queues.models import FlavorCapacity, Queue
from apps.queues.proposals import check_proposal_shape
from apps.queues.quantity import parse_units
from apps.queues.services.policy import Preview
from apps.whatif import policies
from apps.whatif.choices import CURRENT, PROPOSED, ReplayStatus, RunStatus
from apps.whatif.models import Replay, WhatIfRun
from apps.whatif.replay.metrics import entitlements
from apps.whatif.replay.trace import is_gpu
from core import permissions
from core.audit import AuditAction, record_audit
from core.bounds import text_errors
from core.errors import InvalidInput, NotAllowed

log = logging.getLogger(__name__)

# Sent after commit for every new run; ``apps.whatif.tasks`` starts its replays
# (connected from the app's ready()), so this module never imports tasks.
run_created = Signal()


@transaction.atomic
def request_whatif(
    draft: policies.Draft, *, actor, days: int | None = None, reason: str = ""
) -> WhatIfRun:
    """Check and freeze a draft (``{queue name: proposal}``), then queue its replays.

    ``actor`` None: the portal itself (the weekly policy suggestions); its runs may
    replay any queue and are judged against the team's envelope, as a lead applies them.
    """
    queues = _drafted_queues(draft, actor)
    if problems := text_errors(reason=reason):
        raise InvalidInput(problems)
    previews = _previews_or_raise(queues, draft, actor)
    current, proposed = policies.current_and_proposed(draft)
    fair = policies.fair_sharing_enabled()
    days = days or settings.QM_WHATIF_HISTORY_DAYS
    end = timezone.now()
    run = WhatIfRun.objects.create(
        requested_by=actor,
        draft=draft,
        base_versions={q.name: q.version for q in queues},
        changes={
            name: {"changes": preview.changes, "breaches": preview.breaches}
            for name, preview in previews.items()
        },
        reason=reason,
        days=days,
        window_start=end - timedelta(days=days),
        window_end=end,
        fair_sharing=fair,
        policies={
            CURRENT: policies.policy_objects(current, fair_sharing=fair),
            PROPOSED: policies.policy_objects(proposed, fair_sharing=fair),
        },
        entitled={CURRENT: entitlements(current.queues), PROPOSED: entitlements(proposed.queues)},
        capacity_gpus=_capacity_gpus(),
    )
    record_audit(actor=actor, action=AuditAction.CREATE, obj=run, after=draft, reason=reason)
    transaction.on_commit(lambda: run_created.send(WhatIfRun, run_id=run.pk))
    return run


def _drafted_queues(draft: policies.Draft, actor) -> list[Queue]:
    if actor is not None and not permissions.can_run_whatif(actor):
        raise NotAllowed("only team leads and admins may run what-ifs")
    _check_draft_shape(draft)
    queues = list(Queue.objects.with_policy().filter(name__in=draft).order_by("name"))
    missing = sorted(set(draft) - {q.name for q in queues})
    if missing:
        raise InvalidInput.single("draft", f"no such queue: {', '.join(missing)}")
    if actor is not None and not all(permissions.can_edit_queue(actor, q) for q in queues):
        raise NotAllowed("a draft may only change queues you may edit")
    return queues


def _check_draft_shape(draft: policies.Draft) -> None:
    """A mapping of queue names to proposals, each shaped like a save's body."""
    if not isinstance(draft, dict):
        raise InvalidInput.single("draft", "must map queue names to proposals")
    if not draft:
        raise InvalidInput.single("draft", "name at least one queue to change")
    errors: dict[str, list[str]] = {}
    for name, proposal in draft.items():
        try:
            check_proposal_shape(proposal, prefix=f"{name}.")
        except InvalidInput as exc:
            errors.update(exc.errors)
    if errors:
        raise InvalidInput(errors)


def _previews_or_raise(queues: list[Queue], draft: policies.Draft, actor) -> dict[str, Preview]:
    """Each drafted queue's preview (its field changes, envelope breaches); refuse invalid drafts.

    A draft beyond physical capacity is refused too: applying it could not succeed.
    """
    errors: dict[str, list[str]] = {}
    previews = {}
    for queue in queues:
        preview = previews[queue.name] = queue_services.preview_queue_change(
            queue, draft[queue.name], actor=actor
        )
        for found in (preview.errors, preview.capacity_errors):
            for path, messages in found.items():
                errors.setdefault(f"{queue.name}.{path}", []).extend(messages)
    if errors:
        raise InvalidInput(errors)
    return previews


def _capacity_gpus() -> float:
    rows = FlavorCapacity.objects.values_list("resource", "capacity")
    return float(sum((parse_units(c) for r, c in rows if is_gpu(r)), Decimal(0)))


@transaction.atomic
def plan_replays(run: WhatIfRun, keys: list[str]) -> list[str]:
    """Create the run's replay rows (once) and mark it running; returns the keys still to do."""
    locked = WhatIfRun.objects.select_for_update().get(pk=run.pk)
    for key in keys:
        Replay.objects.get_or_create(run=locked, key=key)
    if locked.status == RunStatus.QUEUED:
        WhatIfRun.objects.filter(pk=run.pk).update(
            status=RunStatus.RUNNING, replays_total=len(keys)
        )
    pending = locked.replays.filter(status=ReplayStatus.PENDING)
    return list(pending.values_list("key", flat=True))


@transaction.atomic
def record_replay(run: WhatIfRun, key: str, *, result: dict, seconds: float) -> bool:
    """Store one finished replay; False when it was already stored (a task ran twice)."""
    # The conditional UPDATE makes the progress count exact under duplicate deliveries.
    stored = Replay.objects.filter(run=run, key=key, status=ReplayStatus.PENDING).update(
        status=ReplayStatus.DONE,
        result=result,
        seconds=seconds,
        finished_at=timezone.now(),
    )
    if stored:
        WhatIfRun.objects.filter(pk=run.pk).update(replays_done=F("replays_done") + 1)
    return bool(stored)


@transaction.atomic
def finish_whatif(run: WhatIfRun, result: dict) -> WhatIfRun:
    """Store the summary; only a running run finishes (a second call changes nothing)."""
    WhatIfRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(
        status=RunStatus.DONE, result=result, finished_at=timezone.now()
    )
    return WhatIfRun.objects.get(pk=run.pk)


@transaction.atomic
def fail_whatif(run: WhatIfRun, error: str) -> None:
    WhatIfRun.objects.filter(pk=run.pk, status__in=RunStatus.active_values()).update(
        status=RunStatus.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def stamp_replay(run_id: int, key: str) -> None:
    """Record that a live worker is computing this replay (its heartbeat)."""
    Replay.objects.filter(run_id=run_id, key=key, status=ReplayStatus.PENDING).update(
        heartbeat_at=timezone.now()
    )


def stuck_after_seconds() -> float:
    """How old a replay's last heartbeat is when its worker is taken for lost."""
    return settings.QM_WHATIF_HEARTBEAT_SECONDS * settings.QM_WHATIF_HEARTBEAT_MISSES


def fail_stuck_whatifs(now: datetime | None = None) -> list[int]:
    """Fail the running runs with a replay a worker took and stopped stamping; their ids.

    Replays nobody has taken yet (no heartbeat) are waiting behind other work, not lost,
    so a run queued behind a busy cluster is never swept.
    """
    stale = (now or timezone.now()) - timedelta(seconds=stuck_after_seconds())
    stuck = Replay.objects.filter(
        run__status=RunStatus.RUNNING, status=ReplayStatus.PENDING, heartbeat_at__lt=stale
    )
    # One replay per run (its oldest stamp), so each run is failed and audited once.
    oldest = {}
    for replay in stuck.select_related("run").order_by("-heartbeat_at"):
        oldest[replay.run_id] = replay
    return [run_id for run_id, replay in sorted(oldest.items()) if _fail_stuck_whatif(replay)]


@transaction.atomic
def _fail_stuck_whatif(replay: Replay) -> bool:
    since = f"{replay.heartbeat_at:%Y-%m-%d %H:%M:%S} UTC"
    error = f"its worker stopped (no progress since {since}); run it again"
    # Conditional on "running": a replay that finished meanwhile, or a second sweep, wins.
    failed = WhatIfRun.objects.filter(pk=replay.run_id, status=RunStatus.RUNNING).update(
        status=RunStatus.FAILED, error=error, finished_at=timezone.now()
    )
    if failed:
        log.warning("what-if #%s failed: replay %s %s", replay.run_id, replay.key, error)
        record_audit(
            actor=None,
            action=AuditAction.UPDATE,
            obj=replay.run,
            before={"status": RunStatus.RUNNING},
            after={"status": RunStatus.FAILED, "error": error},
            reason="worker lost",
        )
    return bool(failed)


@transaction.atomic
def apply_whatif(run: WhatIfRun, *, actor, reason: str = "") -> list[queue_services.SaveOutcome]:
    """Save the draft through the normal path, queue by queue, as ``actor``.

    Leads get change requests for edits beyond their envelope; admins apply.
    All or nothing: one refused queue rolls back the others. Each save names the
    version the what-if was based on, so a queue changed since gets a conflict.
    """
    if problems := text_errors(reason=reason):
        raise InvalidInput(problems)
    if run.status != RunStatus.DONE:
        raise InvalidInput.single("status", "only a finished what-if can be applied")
    outcomes = []
    for name, proposal in sorted(run.draft.items()):
        queue = Queue.objects.get(name=name)
        outcomes.append(
            queue_services.save_queue_policy(
                queue,
                proposal,
                actor=actor,
                expected_version=run.base_versions[name],
                reason=reason or f"applied from what-if #{run.pk}",
            )
        )
    return outcomes
