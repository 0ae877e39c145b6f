"""What the edit page shows before anyone types: per flavor × resource, the room left
under physical capacity and, for a lead, the envelope that applies at once (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from apps.queues.envelope import EnvelopeSpec
from apps.queues.reservations import room_left

Key = tuple[str, str]


@dataclass(frozen=True)
class QuotaGuidance:
    capacity: Decimal
    reserved_by_others: Decimal
    room_left: Decimal
    # For a lead: the most nominal quota / borrowing limit that applies without approval.
    # ``envelope_nominal`` None: no limit on this flavor, so any increase needs approval.
    # ``envelope_borrowing`` None with a limit: borrowing is not restricted.
    envelope_nominal: Decimal | None = None
    envelope_borrowing: Decimal | None = None
    has_envelope: bool = False
    envelope_limits_flavor: bool = False


def quota_guidance(
    capacity: dict[str, dict[str, Decimal]],
    reserved_by_others: dict[Key, Decimal],
    envelope: EnvelopeSpec | None,
) -> dict[Key, QuotaGuidance]:
    """Room left = capacity − what every other ClusterQueue reserves (never below 0);
    ``envelope`` is the lead's (None for an admin, who has none)."""
    guidance = {}
    for flavor, resources in capacity.items():
        for resource, amount in resources.items():
            others = reserved_by_others.get((flavor, resource), Decimal(0))
            limit = envelope.limits.get((flavor, resource)) if envelope else None
            guidance[(flavor, resource)] = QuotaGuidance(
                capacity=amount,
                reserved_by_others=others,
                room_left=room_left(amount, others),
                envelope_nominal=limit[0] if limit else None,
                envelope_borrowing=limit[1] if limit else None,
                has_envelope=envelope is not None,
                envelope_limits_flavor=limit is not None,
            )
    return guidance
