"""The rules a queue policy must satisfy, as pure functions over a snapshot.

Rules come from Kueue's CRD schema and admission webhooks (quantity syntax,
limits only inside a cohort, lendingLimit ≤ nominalQuota, …) plus our own
physical-capacity rule. Each message names the rule so the user can fix it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from apps.queues.choices import (
    BorrowWithinCohort,
    QueueingStrategy,
    ReclaimWithinCohort,
    StopPolicy,
    WithinClusterQueue,
)
from apps.queues.names import dns_label_error
from apps.queues.quantity import (
    QuantityError,
    format_units,
    parse_units,
    whole_device_error,
)
from apps.queues.reservations import room_left

INT32_MAX = 2**31 - 1
MAX_FLAVORS = 64
MAX_RESOURCES = 64
MIN_NONZERO_WEIGHT = Decimal("1e-9")


@dataclass(frozen=True)
class PolicyCatalog:
    """What a queue is checked against: flavors with capacity, cohorts, and what every
    other ClusterQueue (team queues, the notebook pool, foreign ones) reserves."""

    capacity: dict[str, dict[str, Decimal]]
    cohorts: frozenset[str]
    reserved_by_others: dict[tuple[str, str], Decimal] = field(default_factory=dict)


@dataclass
class Findings:
    """Rule violations by field path; capacity ones may be overridden by an admin."""

    errors: dict[str, list[str]] = field(default_factory=dict)
    capacity: dict[str, list[str]] = field(default_factory=dict)

    def add(self, path: str, message: str) -> None:
        self.errors.setdefault(path, []).append(message)

    def add_capacity(self, path: str, message: str) -> None:
        self.capacity.setdefault(path, []).append(message)


def validate_queue(proposal: dict[str, Any], catalog: PolicyCatalog) -> Findings:
    findings = Findings()
    _check_name(proposal, findings)
    _check_choices(proposal, findings)
    _check_weight(proposal.get("fair_weight"), "fair_weight", findings)
    _check_cohort(proposal, catalog, findings)
    _check_fair_between_users(proposal, findings)
    _check_preemption(proposal.get("preemption") or {}, findings)
    _check_quotas(proposal, catalog, findings)
    _check_production(proposal, findings)
    return findings


def _check_name(proposal: dict, findings: Findings) -> None:
    problem = dns_label_error(proposal.get("name") or "")
    if problem:
        findings.add("name", problem)


CHOICES = {
    "queueing_strategy": QueueingStrategy.values,
    "stop_policy": StopPolicy.values,
    "preemption.reclaim_within_cohort": ReclaimWithinCohort.values,
    "preemption.within_cluster_queue": WithinClusterQueue.values,
    "preemption.borrow_within_cohort": BorrowWithinCohort.values,
}


def _lookup(proposal: dict, path: str) -> Any:
    value: Any = proposal
    for part in path.split("."):
        value = (value or {}).get(part)
    return value


def _check_choices(proposal: dict, findings: Findings) -> None:
    for path, allowed in CHOICES.items():
        value = _lookup(proposal, path)
        if value not in allowed:
            findings.add(
                path, f"must be one of {', '.join(allowed)} (Kueue rule), e.g. {allowed[0]}"
            )


def _quantity(value: Any, path: str, findings: Findings, resource: str = "") -> Decimal | None:
    """Parse a quantity of ``resource``; record syntax, sign and whole-device problems."""
    try:
        parsed = parse_units(value)
    except QuantityError as exc:
        findings.add(path, f"{exc}, e.g. 8")
        return None
    if parsed < 0:
        findings.add(path, "must not be negative (Kueue rule), e.g. 0")
        return None
    if problem := whole_device_error(resource, parsed):
        findings.add(path, problem)
        return None
    return parsed


def _check_weight(value: Any, path: str, findings: Findings) -> None:
    weight = _quantity(value, path, findings)
    if weight is not None and 0 < weight <= MIN_NONZERO_WEIGHT:
        findings.add(path, "must be 0 or greater than 1e-9 (Kueue fairSharing.weight rule), e.g. 1")


def _check_cohort(proposal: dict, catalog: PolicyCatalog, findings: Findings) -> None:
    cohort = proposal.get("cohort")
    if cohort and cohort not in catalog.cohorts:
        known = ", ".join(sorted(catalog.cohorts)) or "none yet"
        findings.add("cohort", f"cohort {cohort!r} does not exist; pick an existing one ({known})")


def _check_fair_between_users(proposal: dict, findings: Findings) -> None:
    # Per-user LocalQueues are made for a team's members; a shared queue has no one team.
    if proposal.get("fair_between_users") and not proposal.get("team"):
        findings.add(
            "fair_between_users",
            "only a team's queue can be fair between users (its members get LocalQueues of "
            "their own); a shared queue must keep it off, e.g. false",
        )


def _check_production(proposal: dict, findings: Findings) -> None:
    # Kueue preempts across ClusterQueues only to reclaim what a queue borrowed, and
    # only lent quota can be borrowed: a production queue that does neither keeps its
    # inference services safe from batch (docs/inference.md).
    if not proposal.get("production") or not proposal.get("cohort"):
        return
    for index, quota in enumerate(proposal.get("quotas") or []):
        for limit in ("borrowing_limit", "lending_limit"):
            if _is_zero(quota.get(limit)):
                continue
            findings.add(
                f"quotas[{index}].{limit}",
                "must be 0 in a production queue (it never borrows from or lends to its "
                "cohort, so batch cannot take its GPUs), e.g. 0",
            )


def _is_zero(value: Any) -> bool:
    try:
        return value not in (None, "") and parse_units(value) == 0
    except QuantityError:
        return False


def _check_preemption(preemption: dict, findings: Findings) -> None:
    reclaim = preemption.get("reclaim_within_cohort")
    borrow = preemption.get("borrow_within_cohort")
    if borrow != BorrowWithinCohort.NEVER and reclaim == ReclaimWithinCohort.NEVER:
        findings.add(
            "preemption.borrow_within_cohort",
            "must be Never when reclaim_within_cohort is Never (Kueue rule), e.g. Never, or "
            "set reclaim_within_cohort to LowerPriority",
        )
    threshold = preemption.get("borrow_max_priority_threshold")
    if threshold is None:
        return
    if borrow != BorrowWithinCohort.LOWER_PRIORITY:
        findings.add(
            "preemption.borrow_max_priority_threshold",
            "may only be set when borrow_within_cohort is LowerPriority (Kueue rule); "
            "leave it empty",
        )
    elif not isinstance(threshold, int) or not -INT32_MAX - 1 <= threshold <= INT32_MAX:
        findings.add(
            "preemption.borrow_max_priority_threshold", "must be a 32-bit integer, e.g. 100"
        )


def _check_quotas(proposal: dict, catalog: PolicyCatalog, findings: Findings) -> None:
    quotas = proposal.get("quotas") or []
    in_cohort = bool(proposal.get("cohort"))
    seen: set[tuple[str, str]] = set()
    for index, quota in enumerate(quotas):
        path = f"quotas[{index}]"
        key = (quota.get("flavor") or "", quota.get("resource") or "")
        if key in seen:
            findings.add(path, f"{key[0]}/{key[1]} is listed twice; give each one row")
        seen.add(key)
        _check_quota(quota, path, in_cohort, catalog, findings)
    _check_sizes(quotas, findings)


def _check_quota(quota: dict, path: str, in_cohort: bool, catalog, findings: Findings) -> None:
    flavor, resource = quota.get("flavor"), quota.get("resource")
    if flavor not in catalog.capacity:
        known = ", ".join(sorted(catalog.capacity)) or "none yet"
        findings.add(f"{path}.flavor", f"flavor {flavor!r} does not exist; pick one of: {known}")
        return
    if resource not in catalog.capacity[flavor]:
        known = ", ".join(sorted(catalog.capacity[flavor])) or "none"
        findings.add(f"{path}.resource", f"flavor {flavor} has no {resource!r} (it has: {known})")
        return
    nominal = _quantity(quota.get("nominal"), f"{path}.nominal", findings, resource)
    _check_limits(quota, path, nominal, in_cohort, findings)
    if nominal is not None:
        _check_capacity(flavor, resource, nominal, path, catalog, findings)


def _check_limits(quota: dict, path: str, nominal, in_cohort: bool, findings: Findings) -> None:
    for limit in ("borrowing_limit", "lending_limit"):
        if quota.get(limit) in (None, ""):
            continue
        if not in_cohort:
            findings.add(
                f"{path}.{limit}",
                "may only be set when the queue is in a cohort (Kueue rule: borrowing and "
                "lending happen within a cohort); leave it empty or pick a cohort",
            )
            continue
        value = _quantity(quota[limit], f"{path}.{limit}", findings, quota.get("resource"))
        exceeds = value is not None and nominal is not None and value > nominal
        if limit == "lending_limit" and exceeds:
            findings.add(
                f"{path}.lending_limit",
                f"must not exceed the nominal quota ({format_units(nominal)}) (Kueue rule: "
                f"lendingLimit ≤ nominalQuota), e.g. {format_units(nominal)}",
            )


def _check_capacity(flavor, resource, nominal, path, catalog: PolicyCatalog, findings) -> None:
    capacity = catalog.capacity[flavor][resource]
    others = catalog.reserved_by_others.get((flavor, resource), Decimal(0))
    if others + nominal > capacity:
        findings.add_capacity(
            f"{path}.nominal",
            f"reservations on {flavor}/{resource} would be {format_units(others + nominal)} "
            f"(this queue {format_units(nominal)} + {format_units(others)} by other "
            f"queues and the notebook pool), above the physical capacity of "
            f"{format_units(capacity)}; rule: all reservations of a flavor together fit "
            f"its capacity, e.g. nominal {format_units(room_left(capacity, others))} fits",
        )


def _check_sizes(quotas: Iterable[dict], findings: Findings) -> None:
    quotas = list(quotas)
    if len({q.get("flavor") for q in quotas}) > MAX_FLAVORS:
        findings.add("quotas", f"a queue may use at most {MAX_FLAVORS} flavors")
    if len({q.get("resource") for q in quotas}) > MAX_RESOURCES:
        findings.add("quotas", f"a queue may cover at most {MAX_RESOURCES} resources")
