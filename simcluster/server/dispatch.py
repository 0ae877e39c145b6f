"""Map one parsed API request onto a ``Cluster`` verb (HTTP-agnostic).

The handler parses the HTTP request into a ``Request``; ``dispatch`` returns a
``Response`` (JSON body) or a ``Stream`` (watch events). Query parameters use
their Kubernetes names (``labelSelector``, ``dryRun``, ``fieldManager``, …).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from simcluster.server import discovery, errors, openapi, visibility
from simcluster.server.hooks import RequestInfo
from simcluster.server.operations import Cluster, Target, WriteOptions
from simcluster.server.patch import APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH
from simcluster.server.routing import OtherPath, ResourcePath
from simcluster.server.selectors import build_predicate
from simcluster.server.watch import WatchOptions, watch_events

Obj = dict[str, Any]
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH)


@dataclass
class Request:
    """An API request reduced to what dispatch needs."""

    method: str
    route: ResourcePath | OtherPath
    query: dict[str, str]
    body: bytes = b""
    content_type: str = ""
    user_agent: str = ""
    client_gone: Callable[[], bool] = lambda: False

    def flag(self, name: str) -> bool:
        return self.query.get(name, "").lower() in ("1", "true")


@dataclass
class Response:
    code: int
    body: Obj
    warnings: list[str] = field(default_factory=list)
    # A non-JSON answer (e.g. the Prometheus text on /metrics) is sent as is.
    raw: bytes | None = None
    content_type: str = "application/json"


@dataclass
class Stream:
    """A watch: events to send as newline-delimited JSON."""

    events: Iterator[Obj]


def request_info(request: Request) -> RequestInfo | None:
    """RBAC-style description of a resource request (None for non-resource paths)."""
    route = request.route
    if isinstance(route, OtherPath):
        if route.kind == "visibility" and len(route.parts) >= 3:
            return RequestInfo(
                "get",
                "visibility.kueue.x-k8s.io",
                route.parts[-3],
                "pendingworkloads",
                name=route.parts[-2],
            )
        return None
    verbs = {"POST": "create", "PUT": "update", "PATCH": "patch"}
    if request.method in ("GET", "HEAD"):
        verb = (
            "watch" if route.watch or request.flag("watch") else ("get" if route.name else "list")
        )
    elif request.method == "DELETE":
        verb = "delete" if route.name else "deletecollection"
    else:
        verb = verbs.get(request.method, request.method.lower())
    return RequestInfo(
        verb, route.rtype.group, route.rtype.plural, route.subresource, route.namespace, route.name
    )


def parse_body(request: Request) -> Any:
    """JSON (or YAML for apply patches and YAML requests); BadRequest when malformed."""
    if not request.body:
        return None
    if "protobuf" in request.content_type or "cbor" in request.content_type:
        raise errors.unsupported_media_type("application/json, application/yaml")
    text = request.body.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        if "yaml" not in request.content_type:
            raise errors.bad_request("the request body is not valid JSON") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise errors.bad_request(f"the request body is not valid YAML: {exc}") from exc


def write_options(request: Request, body: Any = None) -> WriteOptions:
    """Options from the query string, or from a DeleteOptions body for DELETE."""
    query = dict(request.query)
    options = body if isinstance(body, dict) else {}
    dry_run = query.get("dryRun") == "All" or "All" in (options.get("dryRun") or [])
    manager = query.get("fieldManager") or default_manager(request)
    validation_mode = query.get("fieldValidation") or "Warn"
    if validation_mode not in ("Ignore", "Warn", "Strict"):
        raise errors.bad_request(
            f"fieldValidation must be Ignore, Warn or Strict, not {validation_mode!r}"
        )
    propagation = query.get("propagationPolicy") or options.get("propagationPolicy") or ""
    if options.get("orphanDependents") is True:
        propagation = "Orphan"
    preconditions = options.get("preconditions") or {}
    return WriteOptions(
        dry_run, manager, request.flag("force"), validation_mode, propagation, preconditions
    )


def default_manager(request: Request) -> str:
    """The real server's fallback manager name: the user agent up to the first '/'."""
    if request.content_type == APPLY_PATCH:
        return ""
    return (request.user_agent or "unknown").split("/")[0][:128] or "unknown"


def _target(route: ResourcePath) -> Target:
    return Target(route.rtype, route.version, route.namespace, route.name, route.subresource)


def _int(query: dict[str, str], name: str, default: int = 0) -> int:
    try:
        return int(query.get(name) or default)
    except ValueError as exc:
        raise errors.bad_request(f"{name} must be an integer") from exc


def _read(
    cluster: Cluster, request: Request, route: ResourcePath, bookmark_interval: float
) -> Response | Stream:
    target = _target(route)
    if route.name and not (route.watch or request.flag("watch")):
        return Response(200, cluster.get(target))
    query = request.query
    label_selector, field_selector = query.get("labelSelector"), query.get("fieldSelector")
    if route.watch and route.name:
        field_selector = ",".join(filter(None, [field_selector, f"metadata.name={route.name}"]))
    predicate = build_predicate(label_selector, field_selector)
    if route.watch or request.flag("watch"):
        opts = WatchOptions(
            resource_version=query.get("resourceVersion", ""),
            timeout_seconds=float(_int(query, "timeoutSeconds", 1800)),
            bookmarks=request.flag("allowWatchBookmarks"),
            bookmark_interval=bookmark_interval,
        )
        return Stream(watch_events(cluster, target, predicate, opts, request.client_gone))
    listing = cluster.list(target, predicate, _int(query, "limit"), query.get("continue", ""))
    return Response(200, listing)


def _write(cluster: Cluster, request: Request, route: ResourcePath) -> Response:
    target = _target(route)
    method = request.method
    body = parse_body(request)
    if method == "POST" and not route.name:
        result = cluster.create(target, body, write_options(request))
    elif method == "PUT" and route.name:
        result = cluster.update(target, body, write_options(request))
    elif method == "PATCH" and route.name:
        content_type = request.content_type
        if content_type not in PATCH_TYPES:
            raise errors.unsupported_media_type(", ".join(PATCH_TYPES))
        result = cluster.patch(target, body, content_type, write_options(request))
    elif method == "DELETE" and route.name and not route.subresource:
        result = cluster.delete(target, write_options(request, body))
    elif method == "DELETE" and not route.name:
        predicate = build_predicate(
            request.query.get("labelSelector"), request.query.get("fieldSelector")
        )
        return Response(
            200, cluster.delete_collection(target, predicate, write_options(request, body))
        )
    else:
        raise errors.method_not_allowed()
    return Response(result.code, result.obj, result.warnings)


def dispatch_resource(
    cluster: Cluster, request: Request, bookmark_interval: float
) -> Response | Stream:
    route = request.route
    assert isinstance(route, ResourcePath)
    if request.method in ("GET", "HEAD"):
        return _read(cluster, request, route, bookmark_interval)
    return _write(cluster, request, route)


def dispatch_discovery(route: OtherPath) -> Response:
    """Discovery documents; 404 Status for unknown paths."""
    documents: dict[str, Callable[[], Obj | None]] = {
        "version": discovery.version,
        "core": discovery.core_versions,
        "core-version": lambda: discovery.resource_list("", "v1"),
        "groups": discovery.group_list,
        "group": lambda: discovery.group(route.parts[0]),
        "group-version": lambda: discovery.resource_list(*route.parts),
    }
    document = documents.get(route.kind, lambda: None)()
    if document is None:
        raise errors.path_not_found()
    return Response(200, document)


def dispatch_visibility(
    cluster: Cluster, request: Request, provider: visibility.PendingProvider
) -> Response:
    """``clusterqueues/{cq}/pendingworkloads`` and ``namespaces/{ns}/localqueues/{lq}/pendingworkloads``."""
    parts = request.route.parts if isinstance(request.route, OtherPath) else ()
    if request.method != "GET":
        raise errors.method_not_allowed()
    limit, offset = _int(request.query, "limit"), _int(request.query, "offset")
    if (
        len(parts) == 4
        and parts[1] == "clusterqueues"
        and parts[3] == "pendingworkloads"
        and parts[0] == "v1beta2"
    ):
        return Response(
            200, visibility.cluster_queue_pending(cluster, provider, parts[2], limit, offset)
        )
    if (
        len(parts) == 6
        and parts[1] == "namespaces"
        and parts[3] == "localqueues"
        and parts[5] == "pendingworkloads"
    ):
        return Response(
            200,
            visibility.local_queue_pending(cluster, provider, parts[2], parts[4], limit, offset),
        )
    raise errors.path_not_found()


def dispatch_openapi(parts: tuple[str, ...]) -> Response:
    """``/openapi/v3`` and its group-version documents (see openapi.py); v2 is 404."""
    if parts == ("v3",):
        return Response(200, openapi.index())
    document = openapi.group_version_document("/".join(parts[1:])) if parts[:1] == ("v3",) else None
    if document is None:
        raise errors.path_not_found()
    return Response(200, document)
