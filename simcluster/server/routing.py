"""Turn a request path into what it addresses (pure; no I/O).

Resource paths look like ``/api/v1/namespaces/{ns}/{plural}/{name}/{sub}`` or
``/apis/{group}/{version}/{plural}/{name}/{sub}``; a leading ``watch/`` segment
(the deprecated watch prefix) sets ``watch``.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcluster.server import resources
from simcluster.server.resources import ResourceType


@dataclass(frozen=True)
class ResourcePath:
    """A path that names a resource collection, an object or a subresource."""

    rtype: ResourceType
    version: str
    namespace: str = ""
    name: str = ""
    subresource: str = ""
    watch: bool = False


@dataclass(frozen=True)
class OtherPath:
    """Discovery, visibility, hooks or an unknown path: ``kind`` says which."""

    kind: str  # version, core, core-version, groups, group, group-version, visibility, hooks, openapi, health, metrics, unknown
    parts: tuple[str, ...] = ()


Route = ResourcePath | OtherPath


def _split(path: str) -> list[str]:
    return [part for part in path.split("/") if part]


def _resource(group: str, version: str, rest: list[str]) -> Route:
    watch = bool(rest) and rest[0] == "watch"
    rest = rest[1:] if watch else rest
    namespace = ""
    if len(rest) >= 3 and rest[0] == "namespaces":
        candidate = resources.find(group, version, rest[2])
        if candidate is not None and candidate.namespaced:
            namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        return OtherPath("unknown")
    rtype = resources.find(group, version, rest[0])
    if rtype is None:
        return OtherPath("unknown")
    name = rest[1] if len(rest) > 1 else ""
    sub = rest[2] if len(rest) > 2 else ""
    if sub and sub not in rtype.subresources:
        return OtherPath("unknown")
    return ResourcePath(rtype, version, namespace, name, sub, watch)


def route(path: str) -> Route:
    """Classify ``path`` (query string already removed)."""
    parts = _split(path)
    if not parts:
        return OtherPath("root")
    head, rest = parts[0], parts[1:]
    if head == "version":
        return OtherPath("version")
    if head in ("healthz", "readyz", "livez"):
        return OtherPath("health")
    if head == "openapi":
        return OtherPath("openapi", tuple(rest))
    if head == "metrics" and not rest:
        return OtherPath("metrics")
    if head == "simcluster":
        return OtherPath("hooks", tuple(rest))
    if head == "api":
        return _core(rest)
    if head == "apis":
        return _apis(rest)
    return OtherPath("unknown")


def _core(rest: list[str]) -> Route:
    if not rest:
        return OtherPath("core")
    if rest[0] != "v1":
        return OtherPath("unknown")
    if len(rest) == 1:
        return OtherPath("core-version", ("", "v1"))
    return _resource("", "v1", rest[1:])


def _apis(rest: list[str]) -> Route:
    if not rest:
        return OtherPath("groups")
    if len(rest) == 1:
        return OtherPath("group", (rest[0],))
    if len(rest) == 2:
        return OtherPath("group-version", (rest[0], rest[1]))
    if rest[0] == resources.VISIBILITY_GROUP:
        return OtherPath("visibility", tuple(rest[1:]))
    return _resource(rest[0], rest[1], rest[2:])
