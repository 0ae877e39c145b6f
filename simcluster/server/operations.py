"""The API verbs (get, list, create, update, patch, apply, delete) over the store.

``Cluster`` is the single write path: the HTTP handler calls it, and so may
the admission engine (in-process), so validation, defaulting, field ownership,
finalizers and watch events behave the same for everybody. Every
read-decide-write sequence runs under ``store.lock`` so optimistic-concurrency
checks and AlreadyExists checks cannot race with another writer.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from simcluster.server import conversion, errors, lifecycle, validation
from simcluster.server.deletion import DeletionMixin
from simcluster.server.managed import WriteContext, record_update, server_side_apply
from simcluster.server.patch import (
    APPLY_PATCH,
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_PATCH,
    PatchError,
    json_patch,
    merge_patch,
    strategic_merge,
)
from simcluster.server.resources import NAMESPACES, PODS, ResourceType
from simcluster.server.selectors import Predicate
from simcluster.server.store import Store
from simcluster.server.targets import Result, Target, WriteOptions

Obj = dict[str, Any]
Clock = Callable[[], datetime]


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Cluster(DeletionMixin):
    """API semantics on top of a ``Store`` (see module docstring)."""

    def __init__(
        self,
        store: Store | None = None,
        clock: Clock = _utcnow,
        ids: lifecycle.RandomIds | None = None,
    ) -> None:
        self.store = store or Store()
        self.clock = clock
        self.ids = ids or lifecycle.RandomIds()

    def now(self) -> str:
        return lifecycle.rfc3339(self.clock())

    # -- reads -------------------------------------------------------------

    def _load(self, target: Target) -> Obj:
        obj = self.store.get(target.rtype.key, target.key)
        if obj is None:
            raise errors.not_found(target.rtype, target.name)
        return obj

    def get(self, target: Target) -> Obj:
        return conversion.from_storage(target.rtype, target.version, self._load(target))

    def list(self, target: Target, predicate: Predicate, limit: int = 0, token: str = "") -> Obj:
        """A ``<Kind>List`` of matching objects, paged by ``limit``/``continue``."""
        rtype = target.rtype
        # Served as stored (the storage version): the selector can pick before copying.
        stored_form = target.version == rtype.storage_version
        with self.store.lock:
            rv = self.store.resource_version
            objects = self.store.list(
                rtype.key,
                target.namespace if rtype.namespaced and target.namespace else None,
                keep=predicate if stored_form else None,
            )
        items = [conversion.as_served(rtype, target.version, o) for o in objects]
        items = [item for item in items if predicate(item)]
        start = _decode_continue(token)
        if start is not None:
            items = [i for i in items if _sort_key(i) > start]
        metadata: Obj = {"resourceVersion": str(rv)}
        if limit and len(items) > limit:
            metadata["continue"] = _encode_continue(_sort_key(items[limit - 1]), rv)
            metadata["remainingItemCount"] = len(items) - limit
            items = items[:limit]
        return {
            "kind": f"{rtype.kind}List",
            "apiVersion": rtype.api_version(target.version),
            "metadata": metadata,
            "items": items,
        }

    # -- create ------------------------------------------------------------

    def create(self, target: Target, body: Any, opts: WriteOptions) -> Result:
        rtype = target.rtype
        obj = self._check_body(target, body)
        meta = obj.setdefault("metadata", {})
        if rtype.namespaced:
            meta["namespace"] = target.namespace
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = meta["generateName"] + self.ids.name_suffix()
        if not meta.get("name"):
            raise errors.invalid(
                rtype,
                "",
                [
                    errors.Cause(
                        "metadata.name",
                        "FieldValueRequired",
                        "Required value: name or generateName is required",
                    )
                ],
            )
        stored = conversion.to_storage(rtype, target.version, obj)
        if "status" in rtype.subresources:
            stored.pop("status", None)
        with self.store.lock:
            return self._create_locked(target, stored, opts)

    def _create_locked(
        self, target: Target, obj: Obj, opts: WriteOptions, applied: list[Obj] | None = None
    ) -> Result:
        """Create under the lock; ``applied`` is the managedFields of an apply-create."""
        rtype = target.rtype
        name = obj["metadata"]["name"]
        if rtype.namespaced:
            self._require_namespace(target.namespace, rtype, name)
        if (
            self.store.get(rtype.key, (target.namespace if rtype.namespaced else "", name))
            is not None
        ):
            raise errors.already_exists(rtype, name)
        obj = lifecycle.stamp_new(obj, self.now(), self.ids.uid())
        if rtype is NAMESPACES:
            obj.setdefault("status", {})["phase"] = "Active"
        if rtype is PODS:
            # As kube-apiserver's pod strategy does: a pod is never seen without a phase.
            obj["status"] = {"phase": "Pending"}
        obj, warnings = self._admit(target, obj, None, opts)
        if applied is None:
            record_update(None, obj, self._context(target, opts))
        else:
            obj["metadata"]["managedFields"] = applied
        stored = obj if opts.dry_run else self.store.put(rtype.key, obj)
        return Result(conversion.from_storage(rtype, target.version, stored), 201, warnings)

    def _require_namespace(self, namespace: str, rtype: ResourceType, name: str) -> None:
        ns = self.store.get(NAMESPACES.key, ("", namespace))
        if ns is None:
            raise errors.not_found(NAMESPACES, namespace)
        if lifecycle.pending_deletion(ns):
            why = f"unable to create new content in namespace {namespace} because it is being terminated"
            raise errors.forbidden(rtype, name, why)

    def _check_body(self, target: Target, body: Any) -> Obj:
        rtype = target.rtype
        if not isinstance(body, dict):
            raise errors.bad_request("the request body must be a JSON object")
        if body.get("kind") not in (None, "", rtype.kind):
            raise errors.bad_request(
                f"the kind {body.get('kind')!r} of the object does not match the resource {rtype.plural!r}"
            )
        if body.get("apiVersion") not in (None, "", rtype.api_version(target.version)):
            raise errors.bad_request(
                f"the API version in the data ({body.get('apiVersion')}) does not match the expected API version ({rtype.api_version(target.version)})"
            )
        meta = body.get("metadata") or {}
        if rtype.namespaced and meta.get("namespace") not in (None, "", target.namespace):
            raise errors.bad_request(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        return copy.deepcopy(body)

    def _admit(
        self, target: Target, obj: Obj, old: Obj | None, opts: WriteOptions
    ) -> tuple[Obj, list[str]]:
        """Prune, default and validate; unknown fields fail or warn per fieldValidation."""
        obj, unknown = validation.prepare(target.rtype, obj)
        if unknown and opts.field_validation == "Strict":
            fields = ", ".join(f'unknown field "{path}"' for path in unknown)
            raise errors.bad_request(f"strict decoding error: {fields}")
        validation.validate(target.rtype, obj, old)
        warnings = (
            [f'unknown field "{path}"' for path in unknown]
            if opts.field_validation == "Warn"
            else []
        )
        if target.version in target.rtype.deprecated_versions:
            warnings.append(
                f"{target.rtype.api_version(target.version)} {target.rtype.kind} is deprecated; use {target.rtype.api_version()}"
            )
        return obj, warnings

    def _context(self, target: Target, opts: WriteOptions) -> WriteContext:
        manager = opts.field_manager or "unknown"
        return WriteContext(
            manager, target.rtype.api_version(target.version), target.subresource, self.now()
        )

    # -- update, patch, apply ---------------------------------------------

    def update(self, target: Target, body: Any, opts: WriteOptions) -> Result:
        obj = self._check_body(target, body)
        name = (obj.get("metadata") or {}).get("name")
        if name != target.name:
            raise errors.bad_request(
                f"the name of the object ({name}) does not match the name on the URL ({target.name})"
            )
        with self.store.lock:
            old = self._load(target)
            rv = (obj.get("metadata") or {}).get("resourceVersion")
            if not rv and target.rtype.group:
                cause = errors.Cause(
                    "metadata.resourceVersion",
                    "FieldValueInvalid",
                    "Invalid value: 0x0: must be specified for an update",
                )
                raise errors.invalid(target.rtype, target.name, [cause])
            self._check_rv(target, old, rv)
            new = conversion.to_storage(target.rtype, target.version, obj)
            return self._commit(target, old, new, opts)

    def _check_rv(self, target: Target, old: Obj, rv: str | None) -> None:
        if rv and rv != old["metadata"]["resourceVersion"]:
            raise errors.stale_conflict(target.rtype, target.name)

    def _commit(
        self, target: Target, old: Obj, new: Obj, opts: WriteOptions, managed: bool = True
    ) -> Result:
        """Finish an update of ``old`` to ``new`` (both storage version); lock held."""
        rtype = target.rtype
        applied = None if managed else new["metadata"].get("managedFields")
        new = lifecycle.carry_server_fields(rtype, old, new, target.subresource)
        new, warnings = self._admit(target, new, old, opts)
        lifecycle.bump_generation(old, new)
        if managed:
            record_update(old, new, self._context(target, opts))
        elif applied:
            new["metadata"]["managedFields"] = applied
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        if lifecycle.is_noop(old, new) or opts.dry_run:
            return Result(
                conversion.from_storage(rtype, target.version, new if opts.dry_run else old),
                200,
                warnings,
            )
        if lifecycle.pending_deletion(new) and not lifecycle.finalizers(new):
            stored = self._remove(rtype, new)
        else:
            stored = self.store.put(rtype.key, new)
        return Result(conversion.from_storage(rtype, target.version, stored), 200, warnings)

    def patch(self, target: Target, body: Any, content_type: str, opts: WriteOptions) -> Result:
        if content_type == APPLY_PATCH:
            return self.apply(target, body, opts)
        with self.store.lock:
            old = self._load(target)
            current = conversion.from_storage(target.rtype, target.version, old)
            patched = self._patched(target, current, body, content_type)
            if not isinstance(patched, dict):
                raise errors.bad_request(f"the {content_type} patch does not produce an object")
            self._check_rv(target, old, (patched.get("metadata") or {}).get("resourceVersion"))
            if (patched.get("metadata") or {}).get("name") != target.name:
                raise errors.bad_request("the name of the object cannot be changed by a patch")
            new = conversion.to_storage(target.rtype, target.version, patched)
            return self._commit(target, old, new, opts)

    def _patched(self, target: Target, current: Obj, body: Any, content_type: str) -> Obj:
        try:
            if content_type == MERGE_PATCH:
                return merge_patch(current, body)
            if content_type == JSON_PATCH:
                return json_patch(current, body)
            if content_type == STRATEGIC_PATCH and not target.rtype.group.endswith("x-k8s.io"):
                return strategic_merge(current, body)
        except PatchError as exc:
            raise errors.ApiError(422, "Invalid", str(exc)) from exc
        raise errors.unsupported_media_type(", ".join((JSON_PATCH, MERGE_PATCH, APPLY_PATCH)))

    def apply(self, target: Target, body: Any, opts: WriteOptions) -> Result:
        """Server-side apply: create when absent, else merge with field ownership."""
        if not opts.field_manager:
            cause = errors.Cause(
                "fieldManager", "FieldValueRequired", "Required value: is required for apply patch"
            )
            raise errors.ApiError(
                422,
                "Invalid",
                'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
                causes=[cause],
            )
        config = self._check_body(target, body)
        if (config.get("metadata") or {}).get("name") not in (None, target.name):
            raise errors.bad_request("the name of the object does not match the name on the URL")
        config.setdefault("metadata", {})["name"] = target.name
        config["metadata"].pop("managedFields", None)
        config = conversion.to_storage(target.rtype, target.version, config)
        with self.store.lock:
            live = self.store.get(target.rtype.key, target.key)
            if live is None:
                return self._apply_create(target, config, opts)
            self._check_rv(target, live, config["metadata"].get("resourceVersion"))
            merged = server_side_apply(
                target.rtype, live, config, self._context(target, opts), opts.force
            )
            return self._commit(target, live, merged, opts, managed=False)

    def _apply_create(self, target: Target, config: Obj, opts: WriteOptions) -> Result:
        if target.rtype.namespaced:
            config["metadata"]["namespace"] = target.namespace
        if "status" in target.rtype.subresources and target.subresource != "status":
            config.pop("status", None)
        merged = server_side_apply(
            target.rtype, None, config, self._context(target, opts), opts.force
        )
        applied = merged["metadata"].get("managedFields") or []
        return self._create_locked(target, merged, opts, applied=applied)


def _sort_key(obj: Obj) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return (meta.get("namespace") or "", meta.get("name") or "")


def _encode_continue(start: tuple[str, str], rv: int) -> str:
    raw = json.dumps({"rv": rv, "start": list(start)}).encode()
    return base64.urlsafe_b64encode(raw).decode()


def _decode_continue(token: str) -> tuple[str, str] | None:
    if not token:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(token.encode()))
        return (str(data["start"][0]), str(data["start"][1]))
    except (ValueError, KeyError, IndexError, TypeError, binascii.Error) as exc:
        raise errors.bad_request("invalid continue token") from exc
