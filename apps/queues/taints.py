"""A flavor's node taints and tolerations, checked as Kueue's ResourceFlavor CRD and
webhook check them (at most 8 each; Kubernetes' key and value syntax; the CEL rules
on operator, value, effect and tolerationSeconds). Pure: returns (path, rule) pairs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from apps.queues.names import label_key_error, label_value_error

MAX_ITEMS = 8
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
EFFECT_RULE = "must be one of NoSchedule, PreferNoSchedule, NoExecute (Kueue rule)"
TAINT_FIELDS = ("key", "value", "effect", "timeAdded")  # as the CRD
TOLERATION_FIELDS = ("key", "operator", "value", "effect", "tolerationSeconds")
Problem = tuple[str, str]


def taint_problems(taints: Any) -> Iterator[Problem]:
    yield from _list_problems("node_taints", taints)
    seen = set()
    for index, taint in _objects("node_taints", taints):
        path = f"node_taints[{index}]"
        if isinstance(taint, str):
            yield path, taint
            continue
        yield from _unknown(path, taint, TAINT_FIELDS, "taint")
        yield from _key(path, taint.get("key"))
        if taint.get("value"):
            yield from _label_value(f"{path}.value", taint["value"])
        if taint.get("effect") not in EFFECTS:
            yield f"{path}.effect", EFFECT_RULE
        pair = (str(taint.get("key")), str(taint.get("effect")))
        if pair in seen:
            yield path, "key and effect must be unique (Kueue rule)"
        seen.add(pair)


def toleration_problems(tolerations: Any) -> Iterator[Problem]:
    yield from _list_problems("tolerations", tolerations)
    for index, toleration in _objects("tolerations", tolerations):
        path = f"tolerations[{index}]"
        if isinstance(toleration, str):
            yield path, toleration
            continue
        yield from _unknown(path, toleration, TOLERATION_FIELDS, "toleration")
        yield from _toleration(path, toleration)


def _toleration(path: str, toleration: dict) -> Iterator[Problem]:
    key, value = toleration.get("key"), toleration.get("value")
    operator = toleration.get("operator") or "Equal"
    if operator not in ("Equal", "Exists"):
        yield f"{path}.operator", "must be Equal (the default) or Exists (Kueue rule)"
    if not key and operator != "Exists":
        yield f"{path}.operator", "must be Exists when key is empty (Kueue rule)"
    if key:
        yield from _key(path, key)
    if operator == "Exists" and value:
        yield f"{path}.value", "must be empty when operator is Exists (Kueue rule)"
    elif value:
        yield from _label_value(f"{path}.value", value)
    effect = toleration.get("effect")
    if effect and effect not in EFFECTS:
        yield f"{path}.effect", EFFECT_RULE
    yield from _seconds(path, toleration, effect)


def _seconds(path: str, toleration: dict, effect: Any) -> Iterator[Problem]:
    if "tolerationSeconds" not in toleration:
        return
    seconds = toleration["tolerationSeconds"]
    if isinstance(seconds, bool) or not isinstance(seconds, int) or abs(seconds) >= 2**63:
        yield f"{path}.tolerationSeconds", "must be an integer (int64)"
    elif effect != "NoExecute":
        yield f"{path}.tolerationSeconds", "may only be set when effect is NoExecute (Kueue rule)"


def _list_problems(field: str, items: Any) -> Iterator[Problem]:
    if not isinstance(items, list):
        yield field, "must be a list"
    elif len(items) > MAX_ITEMS:
        yield field, f"at most {MAX_ITEMS} entries (Kueue rule)"


def _objects(field: str, items: Any) -> Iterator[tuple[int, dict | str]]:
    """Each entry, or the rule it breaks (a string) when it is not an object."""
    if not isinstance(items, list) or len(items) > MAX_ITEMS:
        return
    for index, item in enumerate(items):
        yield index, item if isinstance(item, dict) else "must be an object"


def _unknown(path: str, item: dict, allowed: tuple[str, ...], kind: str) -> Iterator[Problem]:
    for name in item:
        if name not in allowed:
            yield f"{path}.{name}", f"is not a {kind} field (allowed: {', '.join(allowed)})"
    for name in allowed:
        value = item.get(name)
        if name != "tolerationSeconds" and value is not None and not isinstance(value, str):
            yield f"{path}.{name}", "must be text"


def _key(path: str, key: Any) -> Iterator[Problem]:
    if not isinstance(key, str) or label_key_error(key):
        yield f"{path}.key", "must be a qualified name such as nvidia.com/gpu (Kueue rule)"


def _label_value(path: str, value: Any) -> Iterator[Problem]:
    if isinstance(value, str) and label_value_error(value):
        yield path, f"must be a valid label value: {label_value_error(value)}"
