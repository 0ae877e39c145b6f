"""Pure check of a lead's edit against the team envelope.

Inside the envelope an edit applies at once; each breach listed here turns it
into a change request for an admin. Lowering quotas or limits never needs
approval, so a lead can always give capacity back.

Settings that take from other teams of the cohort are the admin's: a lead may
lower them but not raise them (reclaimWithinCohort Never < LowerPriority < Any;
borrowWithinCohort reaching workloads of a higher priority; a lower lendingLimit,
which keeps idle quota from the cohort). withinClusterQueue only preempts the
team's own workloads and stays the lead's choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from apps.queues.quantity import format_units, parse_units
from apps.queues.snapshots import quota_key

ADMIN_ONLY_FIELDS = {"cohort": "cohort", "stop_policy": "stop policy"}
UNLIMITED = Decimal("Infinity")
# How far each reclaimWithinCohort policy reaches into other queues of the cohort.
RECLAIM_REACH = {"Never": 0, "LowerPriority": 1, "Any": 2}


@dataclass(frozen=True)
class EnvelopeSpec:
    min_weight: Decimal | None = None
    max_weight: Decimal | None = None
    # (flavor, resource) → (max nominal, max borrowing limit or None for unrestricted)
    limits: dict[tuple[str, str], tuple[Decimal, Decimal | None]] = field(default_factory=dict)


def envelope_breaches(current: dict, proposed: dict, envelope: EnvelopeSpec | None) -> list[str]:
    envelope = envelope or EnvelopeSpec()
    breaches = _admin_only_breaches(current, proposed)
    breaches += _weight_breaches(current, proposed, envelope)
    breaches += _preemption_breaches(current.get("preemption"), proposed.get("preemption"))
    current_quotas = {quota_key(q): q for q in current.get("quotas") or []}
    for quota in proposed.get("quotas") or []:
        before = current_quotas.get(quota_key(quota))
        breaches += _quota_breaches(before, quota, envelope)
        breaches += _lending_breaches(before, quota)
    return breaches


def _preemption_breaches(current: dict | None, proposed: dict | None) -> list[str]:
    current, proposed = current or {}, proposed or {}
    breaches = []
    old_reclaim = current.get("reclaim_within_cohort") or "Never"
    new_reclaim = proposed.get("reclaim_within_cohort") or "Never"
    if RECLAIM_REACH.get(new_reclaim, 0) > RECLAIM_REACH.get(old_reclaim, 0):
        breaches.append(
            f"reclaimWithinCohort {new_reclaim} (now {old_reclaim}) preempts more of other "
            "teams' workloads: only a platform admin may raise it"
        )
    old_reach, new_reach = _borrow_reach(current), _borrow_reach(proposed)
    if new_reach > old_reach:
        breaches.append(
            f"borrowWithinCohort {_describe_borrow(proposed)} (now {_describe_borrow(current)}) "
            "preempts other teams' workloads of higher priority: only a platform admin may "
            "raise it"
        )
    return breaches


def _borrow_reach(preemption: dict) -> Decimal:
    """The highest priority borrowWithinCohort may preempt (-inf: none, inf: any lower)."""
    if (preemption.get("borrow_within_cohort") or "Never") == "Never":
        return -UNLIMITED
    threshold = preemption.get("borrow_max_priority_threshold")
    return UNLIMITED if threshold is None else Decimal(threshold)


def _describe_borrow(preemption: dict) -> str:
    policy = preemption.get("borrow_within_cohort") or "Never"
    threshold = preemption.get("borrow_max_priority_threshold")
    if policy == "Never":
        return policy
    limit = "no maxPriorityThreshold" if threshold is None else f"maxPriorityThreshold {threshold}"
    return f"{policy} with {limit}"


def _lending_breaches(before: dict | None, quota: dict) -> list[str]:
    if before is None:
        return []  # a new quota lent nothing before
    old, new = _limit(before.get("lending_limit")), _limit(quota.get("lending_limit"))
    if new >= old:
        return []
    return [
        f"lending limit {_fmt(new)} for {quota['flavor']}/{quota['resource']} is below "
        f"the current {_fmt(old)}: lending less to the cohort needs a platform admin"
    ]


def _admin_only_breaches(current: dict, proposed: dict) -> list[str]:
    return [
        f"only a platform admin may change the {label}"
        for name, label in ADMIN_ONLY_FIELDS.items()
        if current.get(name) != proposed.get(name)
    ]


def _weight_breaches(current: dict, proposed: dict, envelope: EnvelopeSpec) -> list[str]:
    old, new = parse_units(current["fair_weight"]), parse_units(proposed["fair_weight"])
    if old == new:
        return []
    low = envelope.min_weight if envelope.min_weight is not None else min(old, new)
    high = envelope.max_weight if envelope.max_weight is not None else old
    if low <= new <= high:
        return []
    return [
        f"fair-sharing weight {format_units(new)} is outside the envelope "
        f"[{_fmt(envelope.min_weight)}, {_fmt(envelope.max_weight)}]"
    ]


def _quota_breaches(before: dict | None, quota: dict, envelope: EnvelopeSpec) -> list[str]:
    key = (quota["flavor"], quota["resource"])
    label = f"{quota['flavor']}/{quota['resource']}"
    max_nominal, max_borrowing = envelope.limits.get(key, (None, None))
    nominal = parse_units(quota["nominal"])
    old_nominal = parse_units(before["nominal"]) if before else Decimal(0)
    breaches = []
    if nominal > old_nominal and nominal > (
        max_nominal if max_nominal is not None else old_nominal
    ):
        breaches.append(
            f"nominal quota {format_units(nominal)} for {label} exceeds the envelope "
            f"maximum of {_fmt(max_nominal, 'no increase')}"
        )
    borrowing = _limit(quota.get("borrowing_limit"))
    old_borrowing = _limit(before.get("borrowing_limit")) if before else Decimal(0)
    allowed = max_borrowing if key in envelope.limits and max_borrowing is not None else None
    ceiling = UNLIMITED if key in envelope.limits and max_borrowing is None else allowed
    if borrowing > old_borrowing and borrowing > (
        ceiling if ceiling is not None else old_borrowing
    ):
        breaches.append(
            f"borrowing limit {_fmt(borrowing, 'unlimited')} for {label} exceeds the envelope "
            f"maximum of {_fmt(allowed, 'no increase')}"
        )
    return breaches


def _limit(value: str | None) -> Decimal:
    return UNLIMITED if value in (None, "") else parse_units(value)


def _fmt(value: Decimal | None, missing: str = "unset") -> str:
    if value is None:
        return missing
    return "unlimited" if value == UNLIMITED else format_units(value)
