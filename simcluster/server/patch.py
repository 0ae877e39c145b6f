"""The three classic patch formats: JSON merge, JSON patch and strategic merge.

All functions are pure: they return a new document and never modify their
inputs. Failures raise ``PatchError`` (answered as 422/400 by the caller).
"""

from __future__ import annotations

import copy
from typing import Any

MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

# Strategic merge: lists merged element-wise by key, by field name. Core kinds
# only; every other list is replaced. "ports" is keyed by containerPort inside
# containers and by port in a Service (decided per element, see _merge_key).
STRATEGIC_LIST_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "imagePullSecrets": "name",
    "conditions": "type",
    "ownerReferences": "uid",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
    "schedulingGates": "name",
    "resourceClaims": "name",
    "ports": "containerPort",
}
# Primitive lists whose patch adds to (rather than replaces) the live list.
STRATEGIC_SET_LISTS = {"finalizers"}


class PatchError(Exception):
    """The patch document cannot be applied."""


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: maps merge recursively, null deletes, lists replace."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _split_pointer(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"invalid JSON pointer: {pointer!r}")
    return [_unescape(token) for token in pointer[1:].split("/")]


def _resolve_parent(doc: Any, tokens: list[str]) -> Any:
    node = doc
    for token in tokens[:-1]:
        node = _step(node, token)
    return node


def _step(node: Any, token: str) -> Any:
    try:
        if isinstance(node, list):
            return node[int(token)]
        return node[token]
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise PatchError(f"path segment {token!r} does not exist") from exc


def _get(doc: Any, pointer: str) -> Any:
    node = doc
    for token in _split_pointer(pointer):
        node = _step(node, token)
    return node


def _add(doc: Any, pointer: str, value: Any) -> Any:
    tokens = _split_pointer(pointer)
    if not tokens:
        return copy.deepcopy(value)
    parent, last = _resolve_parent(doc, tokens), tokens[-1]
    if isinstance(parent, list):
        index = len(parent) if last == "-" else _list_index(last, len(parent) + 1)
        parent.insert(index, copy.deepcopy(value))
    elif isinstance(parent, dict):
        parent[last] = copy.deepcopy(value)
    else:
        raise PatchError(f"cannot add to {pointer!r}")
    return doc


def _list_index(token: str, size: int) -> int:
    if not token.isdigit() or int(token) >= size:
        raise PatchError(f"invalid array index {token!r}")
    return int(token)


def _remove(doc: Any, pointer: str) -> Any:
    tokens = _split_pointer(pointer)
    if not tokens:
        raise PatchError("cannot remove the whole document")
    parent, last = _resolve_parent(doc, tokens), tokens[-1]
    if isinstance(parent, list):
        del parent[_list_index(last, len(parent))]
    elif isinstance(parent, dict) and last in parent:
        del parent[last]
    else:
        raise PatchError(f"unable to remove nonexistent key: {last}")
    return doc


def _apply_operation(doc: Any, op: dict[str, Any]) -> Any:
    kind, path = op.get("op"), op.get("path")
    if not isinstance(path, str):
        raise PatchError("operation is missing path")
    if kind == "add":
        return _add(doc, path, op.get("value"))
    if kind == "remove":
        return _remove(doc, path)
    if kind == "replace":
        _get(doc, path)
        return (
            _add(_remove(doc, path), path, op.get("value"))
            if path
            else copy.deepcopy(op.get("value"))
        )
    if kind in ("move", "copy"):
        value = copy.deepcopy(_get(doc, op.get("from", "")))
        if kind == "move":
            doc = _remove(doc, op["from"])
        return _add(doc, path, value)
    if kind == "test":
        if _get(doc, path) != op.get("value"):
            raise PatchError(f"test failed at {path!r}")
        return doc
    raise PatchError(f"unknown operation {kind!r}")


def json_patch(target: Any, operations: Any) -> Any:
    """RFC 6902 JSON patch applied to a copy of ``target``."""
    if not isinstance(operations, list):
        raise PatchError("a JSON patch must be a list of operations")
    doc = copy.deepcopy(target)
    for op in operations:
        if not isinstance(op, dict):
            raise PatchError("each JSON patch operation must be an object")
        doc = _apply_operation(doc, op)
    return doc


def _merge_key(field: str, items: list[Any]) -> str | None:
    key = STRATEGIC_LIST_KEYS.get(field)
    if key == "containerPort" and any(
        isinstance(i, dict) and "port" in i and "containerPort" not in i for i in items
    ):
        return "port"
    return key


def _strategic_list(field: str, live: Any, patch: list[Any], order: list[Any] | None) -> list[Any]:
    if field in STRATEGIC_SET_LISTS and isinstance(live, list):
        return live + [item for item in patch if item not in live]
    key = _merge_key(field, patch + (live if isinstance(live, list) else []))
    if key is None or not isinstance(live, list):
        return [_strip_directives(item) for item in patch if not _is_delete(item)]
    merged = copy.deepcopy(live)
    for item in patch:
        _merge_item(merged, key, item)
    if order:
        rank = {
            entry.get(key) if isinstance(entry, dict) else entry: i for i, entry in enumerate(order)
        }
        merged.sort(key=lambda item: rank.get(item.get(key), len(rank)))
    return merged


def _is_delete(item: Any) -> bool:
    return isinstance(item, dict) and item.get("$patch") == "delete"


def _merge_item(merged: list[Any], key: str, item: Any) -> None:
    if not isinstance(item, dict):
        raise PatchError(f"list items merged by {key!r} must be objects")
    position = next((i for i, live in enumerate(merged) if live.get(key) == item.get(key)), None)
    if _is_delete(item):
        if position is not None:
            del merged[position]
    elif position is None:
        merged.append(_strip_directives(item))
    else:
        merged[position] = strategic_merge(merged[position], item)


def _strip_directives(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_directives(v) for k, v in value.items() if not k.startswith("$")}
    if isinstance(value, list):
        return [_strip_directives(v) for v in value]
    return value


def strategic_merge(target: Any, patch: Any) -> Any:
    """A practical subset of strategic merge patch for core kinds.

    Supports keyed list merging (see STRATEGIC_LIST_KEYS), ``$patch: replace``
    and ``$patch: delete``, ``$setElementOrder/<list>``,
    ``$deleteFromPrimitiveList/<list>`` and ``$retainKeys``; null deletes.
    """
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return _strip_directives({k: v for k, v in patch.items() if k != "$patch"})
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    if "$retainKeys" in patch:
        result = {k: v for k, v in result.items() if k in patch["$retainKeys"]}
    for key, value in patch.items():
        _strategic_field(result, key, value, patch)
    return result


def _strategic_field(result: dict[str, Any], key: str, value: Any, patch: dict[str, Any]) -> None:
    if key.startswith("$deleteFromPrimitiveList/"):
        field = key.split("/", 1)[1]
        result[field] = [item for item in result.get(field) or [] if item not in value]
    elif key.startswith("$"):
        return
    elif value is None:
        result.pop(key, None)
    elif isinstance(value, list):
        result[key] = _strategic_list(
            key, result.get(key), value, patch.get(f"$setElementOrder/{key}")
        )
    elif isinstance(value, dict) and value.get("$patch") == "delete":
        result.pop(key, None)
    else:
        result[key] = strategic_merge(result.get(key), value)
