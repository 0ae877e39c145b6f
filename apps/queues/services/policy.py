"""Saving queue policy: validate, check the envelope, apply or file a change request."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apps.queues import notices, signals
from apps.queues.capacity import load_capacity, load_holders
from apps.queues.envelope import EnvelopeSpec, envelope_breaches
from apps.queues.models import (
    AuditEntry,
    ChangeRequest,
    Cohort,
    Envelope,
    Queue,
    QuotaEntry,
    ResourceFlavor,
    Team,
)
from apps.queues.proposals import check_proposal_shape
from apps.queues.quantity import QuantityError, parse_units
from apps.queues.reservations import reserved_per_flavor
from apps.queues.snapshots import PREEMPTION_FIELDS, diff, queue_snapshot
from apps.queues.validation import Findings, PolicyCatalog, validate_queue
from core import permissions
from core.audit import AuditAction, record_audit
from core.bounds import text_errors
from core.errors import Conflict, InvalidInput, NotAllowed

CAPACITY_OVERRIDE_HINT = "a platform admin may save it anyway by giving a capacity override reason"


@dataclass
class SaveOutcome:
    """What a save did: applied, filed a change request, or nothing (no changes)."""

    queue: Queue
    changes: list[dict] = field(default_factory=list)
    change_request: ChangeRequest | None = None

    @property
    def applied(self) -> bool:
        return bool(self.changes) and self.change_request is None


@dataclass
class Preview:
    """What a save would do, computed without writing."""

    changes: list[dict]
    errors: dict[str, list[str]]
    capacity_errors: dict[str, list[str]]
    breaches: list[str]

    @property
    def needs_approval(self) -> bool:
        return bool(self.breaches)

    def refused(self, *, capacity_overridden: bool) -> bool:
        """Whether saving this draft would be refused (so there is nothing to preview)."""
        return bool(self.errors) or (bool(self.capacity_errors) and not capacity_overridden)


def load_catalog(*, excluding_queue: Queue | None) -> PolicyCatalog:
    """Capacity, cohorts, and what every ClusterQueue but ``excluding_queue`` reserves."""
    excluding = excluding_queue.name if excluding_queue is not None else None
    return PolicyCatalog(
        capacity=load_capacity(),
        cohorts=frozenset(Cohort.objects.values_list("name", flat=True)),
        reserved_by_others=reserved_per_flavor(load_holders(), excluding=excluding),
    )


def envelope_for(team: Team | None) -> EnvelopeSpec | None:
    if team is None:
        return None
    envelope = Envelope.objects.filter(team=team).prefetch_related("limits__flavor").first()
    if envelope is None:
        return None
    return EnvelopeSpec(
        min_weight=_optional_quantity(envelope.min_weight),
        max_weight=_optional_quantity(envelope.max_weight),
        limits={
            (limit.flavor.name, limit.resource): (
                parse_units(limit.max_nominal),
                _optional_quantity(limit.max_borrowing),
            )
            for limit in envelope.limits.all()
        },
    )


def _optional_quantity(value: str | None) -> Decimal | None:
    return None if value in (None, "") else parse_units(value)


def normalize_proposal(current: dict[str, Any], proposal: dict[str, Any]) -> dict[str, Any]:
    """Fill what the caller may not change (name, team, version) from the saved queue.

    Raises InvalidInput when the proposal is not shaped like one (unknown fields, a
    quota that is not an object, …), before anything reads it.
    """
    check_proposal_shape(proposal)
    preemption = {**current["preemption"], **(proposal.get("preemption") or {})}
    merged = {**current, **proposal, "preemption": preemption}
    merged.update(name=current["name"], team=current["team"], version=current["version"])
    # Whether a queue is production is decided when it is created, not by a policy edit.
    merged["production"] = current.get("production", False)
    merged["quotas"] = [_normalize_quota(q) for q in merged.get("quotas") or []]
    return merged


def _normalize_quota(quota: dict) -> dict:
    blank_to_none = {k: (None if quota.get(k) in ("", None) else quota.get(k)) for k in quota}
    return {
        "flavor": blank_to_none.get("flavor"),
        "resource": blank_to_none.get("resource"),
        "nominal": blank_to_none.get("nominal"),
        "borrowing_limit": blank_to_none.get("borrowing_limit"),
        "lending_limit": blank_to_none.get("lending_limit"),
    }


def preview_queue_change(queue: Queue, proposal: dict[str, Any], *, actor) -> Preview:
    """What saving ``proposal`` would change, refuse or send for approval.

    ``actor`` None: the portal previewing a policy suggestion it replays; it needs no
    edit right to look, and breaches are judged as for a lead, who would apply it.
    """
    if actor is not None and not permissions.can_edit_queue(actor, queue):
        raise NotAllowed("you may not edit this queue")
    current = queue_snapshot(Queue.objects.with_policy().get(pk=queue.pk))
    proposed = normalize_proposal(current, proposal)
    findings = validate_queue(proposed, load_catalog(excluding_queue=queue))
    changes = _policy_changes(current, proposed)
    breaches = [] if permissions.is_admin(actor) else _breaches(queue, current, proposed)
    return Preview(changes, findings.errors, findings.capacity, breaches)


def _breaches(queue: Queue, current: dict, proposed: dict) -> list[str]:
    try:
        return envelope_breaches(current, proposed, envelope_for(queue.team))
    except QuantityError:
        return []  # unparsable input is reported by validation instead


def _policy_changes(current: dict, proposed: dict) -> list[dict]:
    return diff(current, proposed)


@transaction.atomic
def save_queue_policy(
    queue: Queue,
    proposal: dict[str, Any],
    *,
    actor,
    expected_version: int,
    reason: str = "",
    capacity_override_reason: str = "",
) -> SaveOutcome:
    """Save a queue edit, or file it as a change request when it leaves the envelope.

    Raises InvalidInput (nothing written), Conflict (someone saved first) or
    NotAllowed.
    """
    if not permissions.can_edit_queue(actor, queue):
        raise NotAllowed("you may not edit this queue")
    if problems := text_errors(reason=reason, capacity_override_reason=capacity_override_reason):
        raise InvalidInput(problems)
    locked = _lock_queue(queue, expected_version)
    current = queue_snapshot(locked)
    proposed = normalize_proposal(current, proposal)
    lock_flavors(current, proposed)
    findings = validate_queue(proposed, load_catalog(excluding_queue=locked))
    raise_on_findings(findings, actor, capacity_override_reason)
    changes = _policy_changes(current, proposed)
    if not changes:
        return SaveOutcome(queue=locked)
    breaches = [] if permissions.is_admin(actor) else _breaches(locked, current, proposed)
    if breaches:
        return _file_change_request(locked, current, proposed, changes, breaches, actor, reason)
    apply_policy(locked, current, proposed, actor=actor, reason=reason)
    audit_capacity_override(locked, findings, actor, capacity_override_reason)
    return SaveOutcome(queue=locked, changes=changes)


def queue_changed(current_version: int, changes: list[dict]) -> Conflict:
    """The queue was saved by someone else since the version the caller edited."""
    return Conflict(
        "this queue was changed by someone else since you opened it "
        f"(now version {current_version}); review their changes and save again",
        current_version=current_version,
        changes=changes,
    )


def _lock_queue(queue: Queue, expected_version: int) -> Queue:
    # select_for_update serialises concurrent editors of this queue on Postgres;
    # on SQLite the IMMEDIATE transaction already holds the write lock.
    locked = Queue.objects.select_for_update(of=("self",)).with_policy().get(pk=queue.pk)
    if locked.version != expected_version:
        raise queue_changed(locked.version, changes_since(locked, expected_version))
    return locked


def lock_flavors(current: dict, proposed: dict) -> None:
    # Capacity is checked over the sum of every queue's quota on a flavor: lock the
    # flavors involved, in pk order, so two edits to different queues can't both pass.
    names = {q["flavor"] for q in (current["quotas"] + proposed["quotas"]) if q.get("flavor")}
    list(ResourceFlavor.objects.select_for_update().filter(name__in=names).order_by("pk"))


def changes_since(queue: Queue, version: int) -> list[dict]:
    """What changed between the version an editor saw and the saved queue."""
    entry = (
        AuditEntry.objects.filter(
            object_type="queue", object_id=str(queue.pk), after__version=version
        )
        .order_by("-pk")
        .first()
    )
    return diff(entry.after, queue_snapshot(queue)) if entry else []


def capacity_overridden(actor, capacity_override_reason: str) -> bool:
    """An admin who gives a reason may save past physical capacity (audited)."""
    return permissions.is_admin(actor) and bool(capacity_override_reason.strip())


def raise_on_findings(findings: Findings, actor, capacity_override_reason: str) -> None:
    errors = dict(findings.errors)
    if findings.capacity and not capacity_overridden(actor, capacity_override_reason):
        for path, messages in findings.capacity.items():
            errors.setdefault(path, []).extend(f"{m}; {CAPACITY_OVERRIDE_HINT}" for m in messages)
    if errors:
        raise InvalidInput(errors)


def audit_capacity_override(queue: Queue, findings: Findings, actor, reason: str) -> None:
    if findings.capacity:
        record_audit(
            actor=actor,
            action=AuditAction.CAPACITY_OVERRIDE,
            obj=queue,
            team=queue.team,
            changes=[
                {"field": f, "before": None, "after": m} for f, m in findings.capacity.items()
            ],
            reason=reason,
        )


def _file_change_request(queue, current, proposed, changes, breaches, actor, reason):
    change_request = ChangeRequest.objects.create(
        queue=queue,
        requested_by=actor,
        base_version=current["version"],
        proposed=proposed,
        changes=changes,
        beyond_envelope=breaches,
        reason=reason,
    )
    record_audit(
        actor=actor,
        action=AuditAction.CHANGE_REQUESTED,
        obj=queue,
        team=queue.team,
        before=current,
        after=proposed,
        changes=changes,
        reason=reason,
        change_request=change_request,
    )
    # Stored with the request; email/webhook go out after commit (on_commit task).
    notices.change_request_filed(change_request)
    return SaveOutcome(queue=queue, changes=changes, change_request=change_request)


def apply_policy(queue: Queue, current: dict, proposed: dict, *, actor, reason: str, request=None):
    """Write a validated proposal to the rows, bump the version, audit, schedule reconcile."""
    # The conditional UPDATE is the lost-update guard: it matches only if nobody
    # bumped the version since we read it, on every database backend.
    # update() skips auto_now: the edit's time is written here, or the page's "updated"
    # and out-of-sync "since" would keep the queue's creation time.
    bumped = Queue.objects.filter(pk=queue.pk, version=current["version"]).update(
        version=F("version") + 1, updated_at=timezone.now()
    )
    if bumped != 1:
        raise queue_changed(Queue.objects.get(pk=queue.pk).version, [])
    _write_fields(queue, proposed)
    _write_quotas(queue, proposed["quotas"])
    saved = queue_snapshot(Queue.objects.with_policy().get(pk=queue.pk))
    record_audit(
        actor=actor,
        action=AuditAction.UPDATE,
        obj=queue,
        team=queue.team,
        before=current,
        after=saved,
        changes=diff(current, saved),
        reason=reason,
        change_request=request,
    )
    signals.policy_changed()
    return saved


def _write_fields(queue: Queue, proposed: dict) -> None:
    cohort = Cohort.objects.get(name=proposed["cohort"]) if proposed.get("cohort") else None
    values = {field: proposed["preemption"].get(field) for field in PREEMPTION_FIELDS}
    Queue.objects.filter(pk=queue.pk).update(
        cohort=cohort,
        fair_weight=proposed["fair_weight"],
        queueing_strategy=proposed["queueing_strategy"],
        stop_policy=proposed["stop_policy"],
        fair_between_users=proposed["fair_between_users"],
        **values,
    )


def _write_quotas(queue: Queue, quotas: list[dict]) -> None:
    flavors = {
        f.name: f for f in ResourceFlavor.objects.filter(name__in={q["flavor"] for q in quotas})
    }
    ranks = {name: rank for rank, name in enumerate(dict.fromkeys(q["flavor"] for q in quotas))}
    QuotaEntry.objects.filter(queue=queue).delete()
    QuotaEntry.objects.bulk_create(
        QuotaEntry(
            queue=queue,
            flavor=flavors[q["flavor"]],
            resource=q["resource"],
            rank=ranks[q["flavor"]],
            nominal=q["nominal"],
            borrowing_limit=q.get("borrowing_limit"),
            lending_limit=q.get("lending_limit"),
        )
        for q in quotas
    )


@transaction.atomic
def create_queue(
    *,
    name: str,
    actor,
    team: Team | None = None,
    reason: str = "",
    description: str = "",
    production: bool = False,
) -> Queue:
    """Create an empty queue (admin only); quotas are then set with save_queue_policy.

    A ``production`` queue never borrows or lends (``validation``, docs/inference.md)."""
    if not permissions.can_manage_catalog(actor):
        raise NotAllowed("only platform admins create queues")
    findings = validate_queue(_empty_proposal(name), load_catalog(excluding_queue=None))
    if problems := {**findings.errors, **text_errors(reason=reason, description=description)}:
        raise InvalidInput(problems)
    if Queue.objects.filter(name=name).exists():
        raise InvalidInput.single("name", f"a queue named {name!r} already exists")
    queue = Queue.objects.create(
        name=name, team=team, description=description, production=production
    )
    after = queue_snapshot(Queue.objects.with_policy().get(pk=queue.pk))
    record_audit(
        actor=actor,
        action=AuditAction.CREATE,
        obj=queue,
        team=team,
        after=after,
        changes=diff(None, after),
        reason=reason,
    )
    signals.policy_changed()
    return queue


def _empty_proposal(name: str) -> dict:
    probe = Queue(name=name)
    return {
        "name": name,
        "cohort": None,
        "fair_weight": probe.fair_weight,
        "queueing_strategy": probe.queueing_strategy,
        "stop_policy": probe.stop_policy,
        "fair_between_users": probe.fair_between_users,
        "preemption": {field: getattr(probe, field) for field in PREEMPTION_FIELDS},
        "quotas": [],
    }
