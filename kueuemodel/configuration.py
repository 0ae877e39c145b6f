"""Kueue's Configuration, as far as it changes admission: the object the model reads.

A forecast or a replay must run under the Configuration the cluster's Kueue runs with:
fair sharing changes the order between ClusterQueues of a cohort and which workloads
preemption picks; AdmissionFairSharing orders a ClusterQueue's LocalQueues by usage.
"""

from __future__ import annotations

from typing import Any

from .admission_usage import parse_admission_fair_sharing

FAIR_SHARING_STRATEGIES = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")
"""Kueue's default preemption strategies, spelled out: the model fills none in."""
ADMISSION_FAIR_SHARING_KEYS = frozenset(
    {"usageHalfLifeTime", "usageSamplingInterval", "resourceWeights"}
)


def configuration(
    *, fair_sharing: bool, admission_fair_sharing: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """The Configuration object with the blocks that are on, or None when neither is."""
    if not fair_sharing and admission_fair_sharing is None:
        return None
    config: dict[str, Any] = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta1",
        "kind": "Configuration",
    }
    if fair_sharing:
        config["fairSharing"] = {"preemptionStrategies": list(FAIR_SHARING_STRATEGIES)}
    if admission_fair_sharing is not None:
        config["admissionFairSharing"] = admission_fair_sharing
    return config


def check_admission_fair_sharing(block: Any) -> dict[str, Any]:
    """``block`` if it is a valid ``admissionFairSharing`` block, else ValueError naming
    the key and the rule (e.g. ``{"usageHalfLifeTime": "168h"}``)."""
    example = 'e.g. {"usageHalfLifeTime": "168h", "usageSamplingInterval": "5m"}'
    if not isinstance(block, dict):
        raise ValueError(f"expected a JSON object, {example}")
    unknown = sorted(set(block) - ADMISSION_FAIR_SHARING_KEYS)
    if unknown:
        raise ValueError(
            f"unknown key {unknown[0]!r}: Kueue's block has only "
            f"{', '.join(sorted(ADMISSION_FAIR_SHARING_KEYS))}, {example}"
        )
    for key in ("usageHalfLifeTime", "usageSamplingInterval"):
        if key in block and not isinstance(block[key], str):
            raise ValueError(f"{key} must be a Go duration string, {example}")
    weights = block.get("resourceWeights", {})
    if not isinstance(weights, dict) or not all(
        isinstance(w, int | float) and not isinstance(w, bool) and w >= 0 for w in weights.values()
    ):
        raise ValueError(
            'resourceWeights must map resource names to numbers ≥ 0, e.g. {"nvidia.com/gpu": 100}'
        )
    try:
        parse_admission_fair_sharing(block)
    except ValueError as exc:
        raise ValueError(f"{exc}; durations are Go durations, {example}") from None
    return block
