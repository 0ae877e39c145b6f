"""Field ownership (``metadata.managedFields``) and server-side apply.

Simplified but faithful to the parts clients notice:

* Every write records which manager set which fields. Non-apply writes
  (create/update/patch) take ownership of the fields they change, silently
  (operation ``Update``), like the real server.
* An apply (operation ``Apply``) by manager M with configuration C:
  - conflicts when another manager owns a leaf that C sets to a different
    value (409 with one cause per field) unless ``force=true``, which moves
    ownership to M; leaves C sets to the value already there become shared;
  - removes the fields M applied last time but no longer applies, unless
    another manager also owns them;
  - merges C into the live object (maps recursively, keyed lists by key,
    other lists and scalars replaced) and records M as owner of C's leaves.

Ownership is tracked per leaf path; a manager owning ``spec.a`` and another
setting ``spec.a.b`` are not compared (no prefix conflicts).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from simcluster.server.errors import ApiError, Cause, conflict
from simcluster.server.fieldpaths import (
    LIST_KEYS,
    Path,
    from_fields_v1,
    get_path,
    has_path,
    object_paths,
    remove_path,
    render,
    to_fields_v1,
)
from simcluster.server.resources import ResourceType

Obj = dict[str, Any]


@dataclass
class Entry:
    """One managedFields entry in parsed form."""

    manager: str
    operation: str
    api_version: str
    time: str
    subresource: str
    paths: set[Path]

    def render(self) -> Obj:
        entry: Obj = {
            "manager": self.manager,
            "operation": self.operation,
            "apiVersion": self.api_version,
            "time": self.time,
            "fieldsType": "FieldsV1",
            "fieldsV1": to_fields_v1(self.paths),
        }
        if self.subresource:
            entry["subresource"] = self.subresource
        return entry


def parse_entries(obj: Obj | None) -> list[Entry]:
    raw = ((obj or {}).get("metadata") or {}).get("managedFields") or []
    return [
        Entry(
            e.get("manager", ""),
            e.get("operation", "Update"),
            e.get("apiVersion", ""),
            e.get("time", ""),
            e.get("subresource", ""),
            from_fields_v1(e.get("fieldsV1") or {}),
        )
        for e in raw
        if isinstance(e, dict)
    ]


def _store(obj: Obj, entries: list[Entry]) -> None:
    kept = [entry.render() for entry in entries if entry.paths]
    metadata = obj.setdefault("metadata", {})
    if kept:
        metadata["managedFields"] = kept
    else:
        metadata.pop("managedFields", None)


def _own(entries: list[Entry], me: Entry, paths: set[Path]) -> list[Entry]:
    """Give ``paths`` to ``me`` and take them from everyone else."""
    for entry in entries:
        if entry is not me:
            entry.paths -= paths
    me.paths |= paths
    return entries


def _entry_for(
    entries: list[Entry], manager: str, operation: str, subresource: str, api_version: str, now: str
) -> Entry:
    for entry in entries:
        if (entry.manager, entry.operation, entry.subresource) == (manager, operation, subresource):
            entry.api_version, entry.time = api_version, now
            return entry
    entry = Entry(manager, operation, api_version, now, subresource, set())
    entries.append(entry)
    return entry


@dataclass(frozen=True)
class WriteContext:
    """Who writes, through which version/subresource, and when."""

    manager: str
    api_version: str
    subresource: str
    now: str


def record_update(old: Obj | None, new: Obj, ctx: WriteContext) -> None:
    """Update ``new``'s managedFields for a non-apply write (in place)."""
    include_status = ctx.subresource == "status"
    new_paths = object_paths(new, include_status)
    old_paths = object_paths(old, include_status) if old else set()
    changed = {p for p in new_paths if p not in old_paths or get_path(new, p) != get_path(old, p)}
    entries = parse_entries(old)
    for entry in entries:
        entry.paths = {p for p in entry.paths if has_path(new, p)}
    if changed:
        me = _entry_for(entries, ctx.manager, "Update", ctx.subresource, ctx.api_version, ctx.now)
        _own(entries, me, changed)
    _store(new, entries)


def _conflicts(
    entries: list[Entry], me: str, live: Obj, config: Obj, paths: set[Path]
) -> dict[Path, str]:
    found = {}
    for entry in entries:
        if entry.manager == me and entry.operation == "Apply":
            continue
        for path in entry.paths & paths:
            if get_path(live, path) != get_path(config, path):
                found[path] = entry.manager
    return found


def conflict_error(
    rtype: ResourceType, name: str, found: dict[Path, str], api_version: str
) -> ApiError:
    causes = [
        Cause(
            render(path), "FieldManagerConflict", f'conflict with "{manager}" using {api_version}'
        )
        for path, manager in sorted(found.items())
    ]
    noun = "conflict" if len(causes) == 1 else "conflicts"
    error = conflict(rtype, name, f"Apply failed with {len(causes)} {noun}")
    error.message = f"Apply failed with {len(causes)} {noun}: " + "; ".join(
        f"{cause.message}: {cause.field}" for cause in causes
    )
    error.causes = causes
    return error


def merge_applied(live: Any, config: Any, field: str | None = None) -> Any:
    """Merge an apply configuration into the live value (maps and keyed lists merge)."""
    if isinstance(config, dict) and isinstance(live, dict):
        merged = copy.deepcopy(live)
        for key, value in config.items():
            merged[key] = merge_applied(live.get(key), value, key)
        return merged
    key = LIST_KEYS.get(field or "")
    if isinstance(config, list) and isinstance(live, list) and key and _keyed(config + live, key):
        merged = copy.deepcopy(live)
        for item in config:
            index = next((i for i, cur in enumerate(merged) if cur.get(key) == item.get(key)), None)
            if index is None:
                merged.append(copy.deepcopy(item))
            else:
                merged[index] = merge_applied(merged[index], item)
        return merged
    return copy.deepcopy(config)


def _keyed(items: list[Any], key: str) -> bool:
    return all(isinstance(item, dict) and key in item for item in items)


def server_side_apply(
    rtype: ResourceType, live: Obj | None, config: Obj, ctx: WriteContext, force: bool
) -> Obj:
    """The object after ``ctx.manager`` applies ``config`` (raises 409 on conflicts)."""
    include_status = ctx.subresource == "status"
    applied = object_paths(config, include_status)
    base = copy.deepcopy(live) if live else {}
    entries = parse_entries(live)
    found = _conflicts(entries, ctx.manager, base, config, applied)
    if found and not force:
        name = (config.get("metadata") or {}).get("name", "")
        raise conflict_error(rtype, name, found, ctx.api_version)
    me = _entry_for(entries, ctx.manager, "Apply", ctx.subresource, ctx.api_version, ctx.now)
    others = set().union(*(e.paths for e in entries if e is not me))
    for path in sorted(me.paths - applied - others, key=len, reverse=True):
        remove_path(base, path)
    merged = merge_applied(base, config)
    # Fields applied with the value another manager already set become shared;
    # only forced conflicts change hands.
    for entry in entries:
        if entry is not me:
            entry.paths -= set(found)
    me.paths = applied
    _store(merged, entries)
    return merged
