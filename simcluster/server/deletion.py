"""Deletion semantics: finalizers, garbage collection of dependents, namespace teardown.

A mixin of ``operations.Cluster`` (it uses ``self.store``, ``self.now`` and
``self._load``); split out to keep each module to one concern.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from simcluster.server import conversion, errors, lifecycle
from simcluster.server.resources import NAMESPACES, RESOURCE_TYPES, ResourceType
from simcluster.server.selectors import Predicate
from simcluster.server.targets import Result, Target, WriteOptions

if TYPE_CHECKING:
    from simcluster.server.store import Store

Obj = dict[str, Any]


class DeletionMixin:
    """delete, deletecollection and the removal bookkeeping every verb shares."""

    store: Store

    def now(self) -> str:
        raise NotImplementedError

    def _load(self, target: Target) -> Obj:
        raise NotImplementedError

    def list(self, target: Target, predicate: Predicate, limit: int = 0, token: str = "") -> Obj:
        raise NotImplementedError

    def delete(self, target: Target, opts: WriteOptions) -> Result:
        rtype = target.rtype
        with self.store.lock:
            old = self._load(target)
            self._check_preconditions(target, old, opts.preconditions)
            if opts.dry_run:
                return Result(conversion.from_storage(rtype, target.version, old))
            if rtype is NAMESPACES:
                return self._delete_namespace(target, old, opts)
            stored, removed = self._delete_object(rtype, old, opts.propagation)
        if removed and rtype.group:
            return Result(_success_status(rtype, old))
        return Result(conversion.from_storage(rtype, target.version, stored))

    def _check_preconditions(self, target: Target, old: Obj, preconditions: dict[str, str]) -> None:
        meta = old["metadata"]
        for field_name in ("uid", "resourceVersion"):
            wanted = preconditions.get(field_name)
            if wanted and wanted != meta.get(field_name):
                why = f"Precondition failed: {field_name} in precondition: {wanted}, {field_name} in object meta: {meta.get(field_name)}"
                raise errors.conflict(target.rtype, target.name, why)

    def _delete_object(
        self, rtype: ResourceType, old: Obj, propagation: str = ""
    ) -> tuple[Obj, bool]:
        """Remove now, or mark for deletion when finalizers remain; returns (object, removed)."""
        if lifecycle.finalizers(old):
            if lifecycle.pending_deletion(old):
                return old, False
            marked = copy.deepcopy(old)
            marked["metadata"]["deletionTimestamp"] = self.now()
            marked["metadata"]["deletionGracePeriodSeconds"] = 0
            return self.store.put(rtype.key, marked), False
        return self._remove(rtype, old, propagation), True

    def _remove(self, rtype: ResourceType, obj: Obj, propagation: str = "") -> Obj:
        """Final removal, then garbage-collect dependents and finish a terminating namespace."""
        key = ((obj["metadata"].get("namespace") or ""), obj["metadata"]["name"])
        removed = self.store.remove(rtype.key, key) or obj
        policy = propagation or ("Orphan" if rtype.plural == "jobs" else "Background")
        self._collect_dependents(obj["metadata"].get("uid", ""), key[0], policy)
        if rtype.namespaced:
            self._finish_namespace(key[0])
        return removed

    def _collect_dependents(self, uid: str, namespace: str, policy: str) -> None:
        """Delete (or orphan) objects owned by ``uid``, like the garbage collector."""

        def owned(obj: Obj) -> bool:
            return uid in lifecycle.owner_uids(obj)

        for rtype in RESOURCE_TYPES:
            scope = namespace if rtype.namespaced else None
            # Only the dependents are copied: a busy week deletes thousands of pods.
            for obj in self.store.list(rtype.key, scope, keep=owned):
                if policy == "Orphan":
                    self.store.put(rtype.key, lifecycle.without_owner(obj, uid))
                else:
                    self._delete_object(rtype, obj)

    def _delete_namespace(self, target: Target, old: Obj, opts: WriteOptions) -> Result:
        name = old["metadata"]["name"]
        if not lifecycle.pending_deletion(old):
            marked = copy.deepcopy(old)
            marked["metadata"]["deletionTimestamp"] = self.now()
            marked.setdefault("status", {})["phase"] = "Terminating"
            old = self.store.put(NAMESPACES.key, marked)
        for rtype in RESOURCE_TYPES:
            if rtype.namespaced:
                for obj in self.store.list(rtype.key, name):
                    self._delete_object(rtype, obj)
        self._finish_namespace(name)
        return Result(conversion.from_storage(NAMESPACES, target.version, old))

    def _finish_namespace(self, name: str) -> None:
        ns = self.store.get(NAMESPACES.key, ("", name))
        if ns is None or not lifecycle.pending_deletion(ns):
            return
        if any(self.store.count(rt.key, name) for rt in RESOURCE_TYPES if rt.namespaced):
            return
        if not lifecycle.finalizers(ns):
            self.store.remove(NAMESPACES.key, ("", name))

    def delete_collection(self, target: Target, predicate: Predicate, opts: WriteOptions) -> Obj:
        listing = self.list(target, predicate)
        for item in listing["items"]:
            one = Target(
                target.rtype,
                target.version,
                item["metadata"].get("namespace", ""),
                item["metadata"]["name"],
            )
            try:
                self.delete(one, opts)
            except errors.ApiError as exc:
                if exc.code != 404:
                    raise
        return listing


def _success_status(rtype: ResourceType, obj: Obj) -> Obj:
    meta = obj["metadata"]
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {
            "name": meta["name"],
            "group": rtype.group,
            "kind": rtype.plural,
            "uid": meta.get("uid"),
        },
    }
