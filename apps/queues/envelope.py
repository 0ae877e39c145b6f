"""Pure check of a lead's edit against the team envelope.

Inside the envelope an edit applies at once; each breach listed here turns it
into a change request for an admin. Lowering quotas or limits never needs
approval, so a lead can always give capacity back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from apps.queues.quantity import format_quantity, parse_quantity
from apps.queues.snapshots import quota_key

ADMIN_ONLY_FIELDS = {"cohort": "cohort", "stop_policy": "stop policy"}
UNLIMITED = Decimal("Infinity")


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
    current_quotas = {quota_key(q): q for q in current.get("quotas") or []}
    for quota in proposed.get("quotas") or []:
        before = current_quotas.get(quota_key(quota))
        breaches += _quota_breaches(before, quota, envelope)
    return breaches


def _admin_only_breaches(current: dict, proposed: dict) -> list[str]:
    return [
        f"only a platform admin may change the {label}"
        for name, label in ADMIN_ONLY_FIELDS.items()
        if current.get(name) != proposed.get(name)
    ]


def _weight_breaches(current: dict, proposed: dict, envelope: EnvelopeSpec) -> list[str]:
    old, new = parse_quantity(current["fair_weight"]), parse_quantity(proposed["fair_weight"])
    if old == new:
        return []
    low = envelope.min_weight if envelope.min_weight is not None else min(old, new)
    high = envelope.max_weight if envelope.max_weight is not None else old
    if low <= new <= high:
        return []
    return [
        f"fair-sharing weight {format_quantity(new)} is outside the envelope "
        f"[{_fmt(envelope.min_weight)}, {_fmt(envelope.max_weight)}]"
    ]


def _quota_breaches(before: dict | None, quota: dict, envelope: EnvelopeSpec) -> list[str]:
    key = (quota["flavor"], quota["resource"])
    label = f"{quota['flavor']}/{quota['resource']}"
    max_nominal, max_borrowing = envelope.limits.get(key, (None, None))
    nominal = parse_quantity(quota["nominal"])
    old_nominal = parse_quantity(before["nominal"]) if before else Decimal(0)
    breaches = []
    if nominal > old_nominal and nominal > (
        max_nominal if max_nominal is not None else old_nominal
    ):
        breaches.append(
            f"nominal quota {format_quantity(nominal)} for {label} exceeds the envelope "
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
    return UNLIMITED if value in (None, "") else parse_quantity(value)


def _fmt(value: Decimal | None, missing: str = "unset") -> str:
    if value is None:
        return missing
    return "unlimited" if value == UNLIMITED else format_quantity(value)
