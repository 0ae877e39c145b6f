"""Writes through the API server's own verbs, as a real controller's client would.

Every write goes through ``operations.Cluster`` (validation, defaults,
managedFields, watch events) and is counted in the server's request counters
under ``controller``, so "a no-op tick writes nothing" is observable at
``/simcluster/counters`` apart from what API clients do.
The resourceVersions of our own writes are remembered so the controller can
skip its own echoes in the store's event stream.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from simcluster.server import errors, resources
from simcluster.server.hooks import CONTROLLER, Counters, RequestInfo
from simcluster.server.operations import Cluster
from simcluster.server.patch import JSON_PATCH, MERGE_PATCH
from simcluster.server.resources import ResourceType
from simcluster.server.targets import Result, Target, WriteOptions

log = logging.getLogger(__name__)
Obj = dict[str, Any]

PODS = resources.by_key("", "pods")
EVENTS = resources.by_key("", "events")
NODES = resources.by_key("", "nodes")
JOBS = resources.by_key("batch", "jobs")
WORKLOADS = resources.by_key(resources.KUEUE_GROUP, "workloads")


class Writer:
    """Create/patch/delete helpers that tolerate races (404/409 are logged, not raised)."""

    def __init__(self, cluster: Cluster, counters: Counters, manager: str) -> None:
        self.cluster = cluster
        self.counters = counters
        self.options = WriteOptions(field_manager=manager)
        self.own: set[int] = set()
        self.writes = 0

    def create(self, rtype: ResourceType, obj: Obj) -> Obj | None:
        namespace = (obj.get("metadata") or {}).get("namespace", "") if rtype.namespaced else ""
        target = Target(rtype, rtype.storage_version, namespace, obj["metadata"]["name"])
        collection = Target(rtype, rtype.storage_version, namespace)
        return self._run(
            "create", target, lambda: self.cluster.create(collection, obj, self.options)
        )

    def merge(
        self, rtype: ResourceType, namespace: str, name: str, patch: Obj, sub: str = ""
    ) -> Obj | None:
        """RFC 7386 merge patch (``None`` values delete keys)."""
        target = Target(rtype, rtype.storage_version, namespace, name, sub)
        return self._run(
            "patch", target, lambda: self.cluster.patch(target, patch, MERGE_PATCH, self.options)
        )

    def put_status(self, rtype: ResourceType, namespace: str, name: str, status: Obj) -> Obj | None:
        """Replace ``status`` wholesale (conditions are one list, admission may vanish)."""
        target = Target(rtype, rtype.storage_version, namespace, name, "status")
        body = [{"op": "add", "path": "/status", "value": status}]
        return self._run(
            "patch", target, lambda: self.cluster.patch(target, body, JSON_PATCH, self.options)
        )

    def json_patch(
        self, rtype: ResourceType, namespace: str, name: str, ops: list[Obj], sub: str = ""
    ) -> Obj | None:
        """RFC 6902 operations (to replace a whole sub-tree such as a pod template)."""
        target = Target(rtype, rtype.storage_version, namespace, name, sub)
        return self._run(
            "patch", target, lambda: self.cluster.patch(target, ops, JSON_PATCH, self.options)
        )

    def delete(
        self, rtype: ResourceType, namespace: str, name: str, propagation: str = "Background"
    ) -> None:
        target = Target(rtype, rtype.storage_version, namespace, name)
        opts = WriteOptions(field_manager=self.options.field_manager, propagation=propagation)
        self._run("delete", target, lambda: self.cluster.delete(target, opts))

    def _run(self, verb: str, target: Target, call: Callable[[], Result]) -> Obj | None:
        rtype = target.rtype
        info = RequestInfo(
            verb, rtype.group, rtype.plural, target.subresource, target.namespace, target.name
        )
        self.counters.record(info, client=CONTROLLER)
        self.writes += 1
        try:
            result = call()
        except errors.ApiError as exc:
            # A user deleted or changed the object meanwhile; the next event fixes it up.
            log.debug("%s %s/%s failed: %s", verb, rtype.plural, target.name, exc)
            return None
        rv = (result.obj.get("metadata") or {}).get("resourceVersion")
        if rv and verb != "delete":
            self.own.add(int(rv))
        return result.obj

    def is_own(self, rv: int) -> bool:
        """True once for each resourceVersion this writer produced."""
        if rv in self.own:
            self.own.discard(rv)
            return True
        return False
