"""Pure conversions between queue rows, plain dict snapshots and field-level diffs.

A snapshot is the canonical, JSON-safe description of a queue's policy. It is
what the audit log stores, what change requests carry, and what diffs compare.
"""

from __future__ import annotations

from typing import Any

PREEMPTION_FIELDS = (
    "reclaim_within_cohort",
    "within_cluster_queue",
    "borrow_within_cohort",
    "borrow_max_priority_threshold",
)
SCALAR_FIELDS = (
    "cohort",
    "fair_weight",
    "queueing_strategy",
    "stop_policy",
    "fair_between_users",
)
QUOTA_FIELDS = ("nominal", "borrowing_limit", "lending_limit")


def queue_snapshot(queue) -> dict[str, Any]:
    """Snapshot of a saved queue (expects quotas prefetched with their flavor)."""
    return {
        "name": queue.name,
        "team": queue.team.slug if queue.team_id else None,
        "cohort": queue.cohort.name if queue.cohort_id else None,
        "fair_weight": queue.fair_weight,
        "queueing_strategy": queue.queueing_strategy,
        "stop_policy": queue.stop_policy,
        "fair_between_users": queue.fair_between_users,
        "production": queue.production,
        "preemption": {field: getattr(queue, field) for field in PREEMPTION_FIELDS},
        "quotas": [quota_snapshot(q) for q in queue.quotas.all()],
        "version": queue.version,
    }


def quota_snapshot(quota) -> dict[str, Any]:
    return {
        "flavor": quota.flavor.name,
        "resource": quota.resource,
        "nominal": quota.nominal,
        "borrowing_limit": quota.borrowing_limit,
        "lending_limit": quota.lending_limit,
    }


def quota_key(quota: dict) -> str:
    return f"{quota['flavor']}/{quota['resource']}"


def flatten(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Flat ``field path → value`` view of a snapshot, the unit of diffs."""
    flat: dict[str, Any] = {field: snapshot.get(field) for field in SCALAR_FIELDS}
    for field, value in (snapshot.get("preemption") or {}).items():
        flat[f"preemption.{field}"] = value
    quotas = snapshot.get("quotas") or []
    flat["flavor_order"] = list(dict.fromkeys(q["flavor"] for q in quotas))
    for quota in quotas:
        for field in QUOTA_FIELDS:
            flat[f"quotas[{quota_key(quota)}].{field}"] = quota.get(field)
    return flat


def diff(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Field-level differences between two snapshots, sorted by field path."""
    old, new = flatten(before or {}), flatten(after or {})
    fields = sorted(set(old) | set(new))
    return [
        {"field": f, "before": old.get(f), "after": new.get(f)}
        for f in fields
        if old.get(f) != new.get(f)
    ]


def apply_changes(snapshot: dict[str, Any], changes: list[dict[str, Any]]) -> dict[str, Any]:
    """Re-apply a diff onto another snapshot (used to rebase an approved request)."""
    flat = flatten(snapshot)
    for change in changes:
        flat[change["field"]] = change["after"]
    return unflatten(flat, base=snapshot)


def unflatten(flat: dict[str, Any], *, base: dict[str, Any]) -> dict[str, Any]:
    result = {k: base.get(k) for k in ("name", "team", "version")}
    result.update({field: flat.get(field) for field in SCALAR_FIELDS})
    result["preemption"] = {f: flat.get(f"preemption.{f}") for f in PREEMPTION_FIELDS}
    result["quotas"] = _unflatten_quotas(flat)
    return result


def _unflatten_quotas(flat: dict[str, Any]) -> list[dict[str, Any]]:
    by_key: dict[str, dict[str, Any]] = {}
    for path, value in flat.items():
        if not path.startswith("quotas["):
            continue
        key, field = path[len("quotas[") :].split("].", 1)
        flavor, resource = key.split("/", 1)
        entry = by_key.setdefault(key, {"flavor": flavor, "resource": resource})
        entry[field] = value
    order = {name: i for i, name in enumerate(flat.get("flavor_order") or [])}
    quotas = [q for q in by_key.values() if q.get("nominal") is not None]
    return sorted(quotas, key=lambda q: (order.get(q["flavor"], len(order)), quota_key(q)))
