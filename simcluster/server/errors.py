"""API errors and the ``Status`` objects the real API server returns for them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simcluster.server.resources import ResourceType


@dataclass(frozen=True)
class Cause:
    """One ``details.causes[]`` entry: which field failed and why."""

    field: str
    reason: str
    message: str

    def render(self) -> str:
        """The ``field: message`` form used inside the Status message."""
        return f"{self.field}: {self.message}" if self.field else self.message

    def as_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "message": self.message, "field": self.field}


@dataclass
class ApiError(Exception):
    """An error answered with a ``Status`` body instead of an object."""

    code: int
    reason: str
    message: str
    name: str = ""
    group: str = ""
    kind: str = ""
    causes: list[Cause] = field(default_factory=list)
    retry_after: int | None = None

    def __str__(self) -> str:
        return f"{self.code} {self.reason}: {self.message}"

    def to_status(self) -> dict[str, Any]:
        """Render as a ``v1 Status`` dict."""
        details: dict[str, Any] = {}
        for key, value in (("name", self.name), ("group", self.group), ("kind", self.kind)):
            if value:
                details[key] = value
        if self.causes:
            details["causes"] = [cause.as_dict() for cause in self.causes]
        if self.retry_after is not None:
            details["retryAfterSeconds"] = self.retry_after
        status: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if details:
            status["details"] = details
        return status


def not_found(rtype: ResourceType, name: str) -> ApiError:
    return ApiError(
        404,
        "NotFound",
        f'{rtype.qualified_plural()} "{name}" not found',
        name=name,
        group=rtype.group,
        kind=rtype.plural,
    )


def already_exists(rtype: ResourceType, name: str) -> ApiError:
    return ApiError(
        409,
        "AlreadyExists",
        f'{rtype.qualified_plural()} "{name}" already exists',
        name=name,
        group=rtype.group,
        kind=rtype.plural,
    )


def conflict(rtype: ResourceType, name: str, why: str) -> ApiError:
    message = f'Operation cannot be fulfilled on {rtype.qualified_plural()} "{name}": {why}'
    return ApiError(409, "Conflict", message, name=name, group=rtype.group, kind=rtype.plural)


def stale_conflict(rtype: ResourceType, name: str) -> ApiError:
    """The optimistic-concurrency failure for a stale ``resourceVersion``."""
    why = "the object has been modified; please apply your changes to the latest version and try again"
    return conflict(rtype, name, why)


def invalid(rtype: ResourceType, name: str, causes: list[Cause]) -> ApiError:
    """422 Invalid listing every failed field, formatted like the real server."""
    rendered = [cause.render() for cause in causes]
    summary = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
    message = f'{rtype.qualified_kind()} "{name}" is invalid: {summary}'
    return ApiError(
        422, "Invalid", message, name=name, group=rtype.group, kind=rtype.kind, causes=causes
    )


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def method_not_allowed(
    message: str = "the server does not allow this method on the requested resource",
) -> ApiError:
    return ApiError(405, "MethodNotAllowed", message)


def forbidden(rtype: ResourceType, name: str, why: str) -> ApiError:
    message = f'{rtype.qualified_plural()} "{name}" is forbidden: {why}'
    return ApiError(403, "Forbidden", message, name=name, group=rtype.group, kind=rtype.plural)


def gone(message: str) -> ApiError:
    return ApiError(410, "Expired", message)


def unsupported_media_type(content_type: str) -> ApiError:
    return ApiError(
        415,
        "UnsupportedMediaType",
        f"the body of the request was in an unknown format - accepted media types include: {content_type}",
    )


def path_not_found() -> ApiError:
    return ApiError(404, "NotFound", "the server could not find the requested resource")
