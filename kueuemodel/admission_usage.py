"""Kueue's AdmissionFairSharing arithmetic: a LocalQueue's decayed usage.

A ClusterQueue with ``admissionScope.admissionMode: UsageBasedAdmissionFairSharing``, in a
Kueue whose Configuration has an ``admissionFairSharing`` block, orders its pending
workloads by the decayed usage of their LocalQueue, lower first, before priority and age
(Kueue v0.17 ``pkg/cache/queue/cluster_queue.go``, ``queueOrderingFunc``). Pure functions
over milli-units; ``admission_order`` applies them to a cluster.

The usage follows Kueue's ``pkg/util/admissionfairsharing``: every sampling interval,
``consumed = old × (1 − α) + current × α`` with ``α = 1 − 0.5^(elapsed ÷ half-life)`` and
``current`` the LocalQueue's admitted requests; each admission adds an entry penalty of
its requests × α(sampling interval). Kueue scales a quantity by truncating to whole
milli-units, and so does this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .clock import parse_duration

USAGE_BASED = "UsageBasedAdmissionFairSharing"
DEFAULT_SAMPLING_MS = 300_000
"""Kueue defaults ``usageSamplingInterval`` to 5m; ``usageHalfLifeTime`` has no default (0)."""
EXACT_SAMPLES = 64
"""Samples folded one by one when catching up; beyond, one decay over the rest (the same
figure up to milli-unit truncation), so a week of 2 s samples costs no more than 64."""

Resources = dict[str, int]
"""Milli-units per resource name, summed over flavors (Kueue flattens them)."""


@dataclass(frozen=True, slots=True)
class AdmissionFairSharing:
    """The ``admissionFairSharing`` block of Kueue's Configuration."""

    half_life_ms: int
    sampling_ms: int = DEFAULT_SAMPLING_MS
    weights: dict[str, float] = field(default_factory=dict)
    """Per resource; a resource not named weighs 1."""


@dataclass(slots=True)
class LocalQueueUsage:
    """What Kueue keeps per LocalQueue: the decayed figure and when it was last folded."""

    consumed: Resources
    last_update_ms: int


def parse_admission_fair_sharing(block: dict[str, Any] | None) -> AdmissionFairSharing | None:
    """The Configuration's block, or None when absent (``admissionScope`` is then ignored)."""
    if block is None:
        return None
    sampling = block.get("usageSamplingInterval")
    return AdmissionFairSharing(
        half_life_ms=parse_duration(block.get("usageHalfLifeTime") or "0s"),
        sampling_ms=parse_duration(sampling) if sampling else DEFAULT_SAMPLING_MS,
        weights={name: float(w) for name, w in (block.get("resourceWeights") or {}).items()},
    )


def alpha(elapsed_ms: int, half_life_ms: int) -> float:
    """The share of the current usage folded in after ``elapsed_ms`` (0 with no half-life)."""
    if half_life_ms <= 0:
        return 0.0
    return 1.0 - 0.5 ** (elapsed_ms / half_life_ms)


def scaled(resources: Resources, factor: float) -> Resources:
    return {name: int(milli * factor) for name, milli in resources.items()}


def added(a: Resources, b: Resources) -> Resources:
    total = dict(a)
    for name, milli in b.items():
        total[name] = total.get(name, 0) + milli
    return total


def decayed(old: Resources, current: Resources, elapsed_ms: int, half_life_ms: int) -> Resources:
    """``old`` decayed over ``elapsed_ms`` with ``current`` folded in."""
    share = alpha(elapsed_ms, half_life_ms)
    return added(scaled(old, 1.0 - share), scaled(current, share))


def entry_penalty(requests: Resources, config: AdmissionFairSharing) -> Resources:
    """Charged at admission, so a queue's next workload does not look as if it used nothing."""
    return scaled(requests, alpha(config.sampling_ms, config.half_life_ms))


def weighted(consumed: Resources, weights: dict[str, float], queue_weight: float = 1.0) -> float:
    """The one number the queue order compares: Σ weight × quantity (base units) ÷ LQ weight."""
    total = sum(weights.get(name, 1.0) * milli / 1000 for name, milli in sorted(consumed.items()))
    return total / queue_weight if queue_weight else float("inf")


def catch_up(
    usage: LocalQueueUsage, current: Resources, now_ms: int, config: AdmissionFairSharing
) -> bool:
    """Fold the samples Kueue takes every interval since the last update, ``current``
    having held all along; True if any fell due."""
    due = (now_ms - usage.last_update_ms) // config.sampling_ms if config.sampling_ms > 0 else 0
    if due <= 0:
        return False
    if config.half_life_ms <= 0:
        usage.consumed = {}  # Kueue resets the usage when it has no half-life
    else:
        for _ in range(min(due, EXACT_SAMPLES)):
            usage.consumed = decayed(
                usage.consumed, current, config.sampling_ms, config.half_life_ms
            )
        rest = (due - EXACT_SAMPLES) * config.sampling_ms
        if rest > 0:
            usage.consumed = decayed(usage.consumed, current, rest, config.half_life_ms)
    usage.last_update_ms += due * config.sampling_ms
    return True


def charge_admission(
    usage: LocalQueueUsage,
    current: Resources,
    requests: Resources,
    now_ms: int,
    config: AdmissionFairSharing,
) -> None:
    """A workload of the queue was admitted (``current`` includes it): fold the time since
    the last update, add the entry penalty, and start the sampling interval afresh."""
    elapsed = now_ms - usage.last_update_ms
    folded = decayed(usage.consumed, current, elapsed, config.half_life_ms)
    usage.consumed = added(folded, entry_penalty(requests, config))
    usage.last_update_ms = now_ms
