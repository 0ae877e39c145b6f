"""The shape of a queue proposal, checked before any rule or any write.

A proposal (the body of a queue save, one queue of a what-if draft) is JSON from
outside: its keys and value types are checked here so that ``{"quotas": "abc"}``
or ``{"evil": 1}`` is a rule broken with the field named, never an AttributeError
deep inside normalisation or a stray key stored with a draft.
"""

from __future__ import annotations

from typing import Any

from apps.queues.snapshots import PREEMPTION_FIELDS, QUOTA_FIELDS, SCALAR_FIELDS
from core.errors import InvalidInput

MAX_QUOTAS = 64 * 64  # MAX_FLAVORS × MAX_RESOURCES of validation
TEXT = "must be text"
QUANTITY = "must be a quantity given as text, such as 8 or 64Gi"


def check_proposal_shape(proposal: Any, prefix: str = "") -> None:
    """Raise InvalidInput naming each malformed or unknown field (paths as the API body)."""
    errors: dict[str, list[str]] = {}

    def add(path: str, message: str) -> None:
        errors.setdefault(f"{prefix}{path}", []).append(message)

    if not isinstance(proposal, dict):
        add("", "must be an object of policy fields")
    else:
        _check_fields(proposal, add)
    if errors:
        raise InvalidInput({(p.rstrip(".") or "proposal"): m for p, m in errors.items()})


def _check_fields(proposal: dict, add) -> None:
    allowed = (*SCALAR_FIELDS, "preemption", "quotas")
    _unknown(proposal, allowed, "", add)
    for name in ("fair_weight", "queueing_strategy", "stop_policy"):
        if name in proposal and not _is_text_or_number(proposal[name]):
            add(name, TEXT)
    if "fair_between_users" in proposal and not isinstance(proposal["fair_between_users"], bool):
        add("fair_between_users", "must be true or false, e.g. true")
    if proposal.get("cohort") is not None and not isinstance(proposal["cohort"], str):
        add("cohort", "must be a cohort name or null")
    if proposal.get("preemption") is not None:
        _check_preemption(proposal["preemption"], add)
    if proposal.get("quotas") is not None:
        _check_quotas(proposal["quotas"], add)


def _check_preemption(preemption: Any, add) -> None:
    if not isinstance(preemption, dict):
        add("preemption", "must be an object")
        return
    _unknown(preemption, PREEMPTION_FIELDS, "preemption.", add)
    for name in PREEMPTION_FIELDS[:-1]:
        if preemption.get(name) is not None and not isinstance(preemption[name], str):
            add(f"preemption.{name}", TEXT)
    threshold = preemption.get("borrow_max_priority_threshold")
    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, int)):
        add("preemption.borrow_max_priority_threshold", "must be an integer or null")


def _check_quotas(quotas: Any, add) -> None:
    if not isinstance(quotas, list):
        add("quotas", "must be a list of quota entries")
        return
    if len(quotas) > MAX_QUOTAS:
        add("quotas", f"at most {MAX_QUOTAS} entries")
        return
    for index, quota in enumerate(quotas):
        path = f"quotas[{index}]"
        if not isinstance(quota, dict):
            add(path, "must be an object with flavor, resource and nominal")
            continue
        _unknown(quota, ("flavor", "resource", *QUOTA_FIELDS), f"{path}.", add)
        for name in ("flavor", "resource"):
            if not isinstance(quota.get(name), str):
                add(f"{path}.{name}", TEXT)
        for name in QUOTA_FIELDS:
            if quota.get(name) is not None and not _is_text_or_number(quota[name]):
                add(f"{path}.{name}", QUANTITY)


def _unknown(mapping: dict, allowed: tuple[str, ...], prefix: str, add) -> None:
    for key in mapping:
        if key not in allowed:
            add(f"{prefix}{key}", f"is not a policy field (allowed: {', '.join(allowed)})")


def _is_text_or_number(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)
