"""Pure helpers for the object lifecycle: stamping, server-owned fields, generation.

These encode API-server rules that every verb shares; ``operations.py`` calls
them while holding the store lock.
"""

from __future__ import annotations

import copy
import random
import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

from simcluster.server.resources import ResourceType

Obj = dict[str, Any]

# Set by the server only; a client can neither set nor change them.
SERVER_METADATA = (
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "managedFields",
)
_NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def rfc3339(moment: datetime) -> str:
    """``2024-05-01T12:00:00Z`` — second precision, always UTC."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class RandomIds:
    """UIDs and ``generateName`` suffixes drawn at random, as the real server draws them."""

    def uid(self) -> str:
        return str(uuid.uuid4())

    def name_suffix(self) -> str:
        return "".join(secrets.choice(_NAME_SUFFIX_ALPHABET) for _ in range(5))


class SeededIds(RandomIds):
    """The same UIDs and suffixes in the same order on every run from one seed.

    For benchmarks that build a history twice and compare: Kueue breaks ties by UID,
    so random UIDs make two recordings of the same week differ. A long-lived server
    keeps ``RandomIds``: a seed reused after a restart would hand out UIDs again.
    """

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def uid(self) -> str:
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    def name_suffix(self) -> str:
        return "".join(self._rng.choice(_NAME_SUFFIX_ALPHABET) for _ in range(5))


def spec_content(obj: Obj) -> Obj:
    """Everything that bumps ``generation`` when changed (all but metadata and status)."""
    return {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata", "status")}


def stamp_new(obj: Obj, now: str, uid: str) -> Obj:
    """Fill the server-owned metadata of an object about to be created."""
    out = copy.deepcopy(obj)
    meta = out.setdefault("metadata", {})
    for field in (*SERVER_METADATA, "resourceVersion"):
        meta.pop(field, None)
    meta["uid"] = uid
    meta["creationTimestamp"] = now
    meta["generation"] = 1
    return out


def carry_server_fields(rtype: ResourceType, old: Obj, new: Obj, subresource: str) -> Obj:
    """``new`` with everything the writer may not change taken from ``old``.

    A write to the main resource cannot change status (when a status
    subresource exists); a status write can change only status.
    """
    if subresource == "status":
        out = copy.deepcopy(old)
        out["status"] = copy.deepcopy(new.get("status"))
        if out["status"] is None:
            out.pop("status")
        return out
    out = copy.deepcopy(new)
    meta = out.setdefault("metadata", {})
    old_meta = old.get("metadata") or {}
    for field in (*SERVER_METADATA, "name", "namespace"):
        meta.pop(field, None)
        if field in old_meta:
            meta[field] = copy.deepcopy(old_meta[field])
    if "status" in rtype.subresources:
        out.pop("status", None)
        if "status" in old:
            out["status"] = copy.deepcopy(old["status"])
    return out


def bump_generation(old: Obj, new: Obj) -> None:
    """Increase ``metadata.generation`` if the spec content changed (in place)."""
    if spec_content(old) != spec_content(new):
        new["metadata"]["generation"] = int(old["metadata"].get("generation", 1)) + 1


def comparable(obj: Obj) -> Obj:
    """``obj`` without volatile bookkeeping, to detect no-op writes."""
    out = copy.deepcopy(obj)
    meta = out.get("metadata") or {}
    meta.pop("resourceVersion", None)
    for entry in meta.get("managedFields") or []:
        entry.pop("time", None)
    return out


def is_noop(old: Obj, new: Obj) -> bool:
    """True when a write would not change anything a client can observe."""
    return comparable(old) == comparable(new)


def pending_deletion(obj: Obj) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


def finalizers(obj: Obj) -> list[str]:
    return list((obj.get("metadata") or {}).get("finalizers") or [])


def owner_uids(obj: Obj) -> set[str]:
    refs = (obj.get("metadata") or {}).get("ownerReferences") or []
    return {ref.get("uid") for ref in refs if isinstance(ref, dict)}


def without_owner(obj: Obj, uid: str) -> Obj:
    out = copy.deepcopy(obj)
    refs = [r for r in out["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
    if refs:
        out["metadata"]["ownerReferences"] = refs
    else:
        out["metadata"].pop("ownerReferences", None)
    return out
