"""Field paths in the ``FieldsV1`` spelling used by ``metadata.managedFields``.

A path is a tuple of elements: ``f:<field>`` for a map field and
``k:{"name":"x"}`` for an element of a keyed list. Lists whose key is unknown
(and scalars, and empty maps) are leaves: they are owned as a whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from simcluster.server.patch import STRATEGIC_LIST_KEYS

Path = tuple[str, ...]

# Keyed lists of the Kueue kinds (list-map keys in the CRDs) plus the core ones.
LIST_KEYS: dict[str, str] = {
    **STRATEGIC_LIST_KEYS,
    "flavors": "name",
    "resources": "name",
    "podSets": "name",
    "admissionChecks": "name",
    "preemptionGates": "name",
}
# Metadata fields that are user content; the rest is server-managed.
TRACKED_METADATA = ("labels", "annotations", "finalizers", "ownerReferences")


def _list_key(field: str | None, items: list[Any]) -> str | None:
    key = LIST_KEYS.get(field or "")
    if key == "containerPort" and any(
        isinstance(i, dict) and "containerPort" not in i for i in items
    ):
        key = "port"
    if key and items and all(isinstance(i, dict) and key in i for i in items):
        return key
    return None


def item_element(key: str, value: Any) -> str:
    return "k:" + json.dumps({key: value}, separators=(",", ":"))


def leaf_paths(value: Any, prefix: Path = (), field: str | None = None) -> Iterator[Path]:
    """Every owned leaf of ``value`` (recursing into maps and keyed lists)."""
    if isinstance(value, dict) and value:
        for name, item in value.items():
            yield from leaf_paths(item, (*prefix, f"f:{name}"), name)
    elif isinstance(value, list) and (key := _list_key(field, value)):
        for item in value:
            yield from leaf_paths(item, (*prefix, item_element(key, item[key])), None)
    else:
        yield prefix


def object_paths(obj: dict[str, Any], include_status: bool) -> set[Path]:
    """Owned paths of a whole object: user metadata plus content, minus status if excluded."""
    metadata = obj.get("metadata") or {}
    tracked: dict[str, Any] = {
        k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")
    }
    if not include_status:
        tracked.pop("status", None)
    user_meta = {k: metadata[k] for k in TRACKED_METADATA if k in metadata}
    if user_meta:
        tracked["metadata"] = user_meta
    return set(leaf_paths(tracked)) - {()}


def _find_item(items: list[Any], element: str) -> int | None:
    wanted = json.loads(element[2:])
    ((key, value),) = wanted.items()
    for index, item in enumerate(items):
        if isinstance(item, dict) and item.get(key) == value:
            return index
    return None


_ABSENT = object()


def get_path(obj: Any, path: Path) -> Any:
    """The value at ``path`` or the ``_ABSENT`` sentinel."""
    node = obj
    for element in path:
        if element.startswith("f:") and isinstance(node, dict) and element[2:] in node:
            node = node[element[2:]]
        elif element.startswith("k:") and isinstance(node, list):
            index = _find_item(node, element)
            if index is None:
                return _ABSENT
            node = node[index]
        else:
            return _ABSENT
    return node


def has_path(obj: Any, path: Path) -> bool:
    return get_path(obj, path) is not _ABSENT


def remove_path(obj: Any, path: Path) -> None:
    """Delete the value at ``path``; deleting a list item's key removes the item."""
    if not path:
        return
    parent = get_path(obj, path[:-1])
    last = path[-1]
    if (
        len(path) >= 2
        and path[-2].startswith("k:")
        and json.loads(path[-2][2:]).keys() == {last[2:]}
    ):
        grandparent = get_path(obj, path[:-2])
        index = _find_item(grandparent, path[-2]) if isinstance(grandparent, list) else None
        if index is not None:
            del grandparent[index]
        return
    if last.startswith("f:") and isinstance(parent, dict):
        parent.pop(last[2:], None)
    elif last.startswith("k:") and isinstance(parent, list):
        index = _find_item(parent, last)
        if index is not None:
            del parent[index]


def to_fields_v1(paths: set[Path]) -> dict[str, Any]:
    """Nest paths into the FieldsV1 tree (leaves are empty objects)."""
    tree: dict[str, Any] = {}
    for path in sorted(paths):
        node = tree
        for element in path:
            node = node.setdefault(element, {})
    return tree


def from_fields_v1(tree: dict[str, Any], prefix: Path = ()) -> set[Path]:
    """Inverse of ``to_fields_v1``."""
    paths: set[Path] = set()
    for element, sub in tree.items():
        if element == ".":
            continue
        if sub:
            paths |= from_fields_v1(sub, (*prefix, element))
        else:
            paths.add((*prefix, element))
    return paths


def render(path: Path) -> str:
    """Human form used in conflict messages, e.g. ``.spec.stopPolicy``."""
    parts = []
    for element in path:
        parts.append("." + element[2:] if element.startswith("f:") else "[" + element[2:] + "]")
    return "".join(parts)
