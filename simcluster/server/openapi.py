"""A deliberately minimal ``/openapi/v3``: just enough for kubectl.

kubectl's default ``--validate=strict`` first asks the OpenAPI v3 documents
whether the server accepts the ``fieldValidation`` query parameter on PATCH for
the object's kind; when it does, validation happens server-side and kubectl
needs no schemas. So each group-version document lists, per resource, one PATCH
operation tagged with ``x-kubernetes-group-version-kind`` and the
``fieldValidation``/``dryRun`` parameters, and nothing else. Strategic merge
patch is deliberately not advertised: kubectl then computes client-side apply
patches from its built-in types (core kinds) or as JSON merge patches (Kueue
kinds), instead of trying to read schemas we don't serve. ``/openapi/v2``
stays 404, which kubectl tolerates.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from simcluster.server.patch import APPLY_PATCH, JSON_PATCH, MERGE_PATCH
from simcluster.server.resources import RESOURCE_TYPES, ResourceType

Obj = dict[str, Any]
_QUERY_PARAMS = ("fieldValidation", "dryRun", "fieldManager", "force")


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _served() -> dict[str, list[ResourceType]]:
    served: dict[str, list[ResourceType]] = {}
    for rtype in RESOURCE_TYPES:
        for version in rtype.versions:
            served.setdefault(_gv_path(rtype.group, version), []).append(rtype)
    return served


def _object_path(rtype: ResourceType, gv_path: str) -> str:
    scope = "namespaces/{namespace}/" if rtype.namespaced else ""
    return f"/{gv_path}/{scope}{rtype.plural}/{{name}}"


def _patch_operation(rtype: ResourceType, version: str) -> Obj:
    media = {"schema": {"type": "object"}}
    return {
        "operationId": f"patch{rtype.kind}",
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": {
            "group": rtype.group,
            "version": version,
            "kind": rtype.kind,
        },
        "parameters": [
            {"name": name, "in": "query", "schema": {"type": "string"}} for name in _QUERY_PARAMS
        ],
        "requestBody": {"content": {t: media for t in (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)}},
        "responses": {"200": {"description": "OK"}},
    }


def group_version_document(gv_path: str) -> Obj | None:
    """The v3 document for ``api/v1`` or ``apis/{group}/{version}``; None if unknown."""
    types = _served().get(gv_path)
    if types is None:
        return None
    version = gv_path.rsplit("/", 1)[1]
    paths = {_object_path(rt, gv_path): {"patch": _patch_operation(rt, version)} for rt in types}
    return {
        "openapi": "3.0.0",
        "info": {"title": "simcluster", "version": "v1.32.0"},
        "paths": paths,
    }


def index() -> Obj:
    """``/openapi/v3``: where each group-version document lives (hash-versioned URLs)."""
    paths = {}
    for gv_path in _served():
        digest = hashlib.sha256(
            json.dumps(group_version_document(gv_path), sort_keys=True).encode()
        ).hexdigest()
        paths[gv_path] = {"serverRelativeURL": f"/openapi/v3/{gv_path}?hash={digest[:32].upper()}"}
    return {"paths": paths}
