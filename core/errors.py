"""The one error vocabulary: every rule a request can break is a ``DomainError``.

A domain error carries a machine-readable ``code``, the input ``field`` at fault (or
None), a ``detail`` for people and the HTTP ``status`` the API answers with. Services
raise them before writing anything. ``core.api_errors`` turns any of them into the API
body ``{"code", "field", "detail"}`` (plus the keys ``extra()`` adds); ``core.pages``
turns them into form errors and page messages. Nothing else translates them.

The codes every app shares are in ``CODES``; an app with a vocabulary of its own (jobs)
subclasses ``DomainError`` with its own ``codes`` table, and the class refuses a code
its table does not document.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied

NON_FIELD = "non_field_errors"

CODES: dict[str, tuple[int, str]] = {
    "invalid": (400, "Input broke a rule; `field` names it, `errors` lists every bad field."),
    "unknown_field": (400, "The body has a field the endpoint does not declare."),
    "forbidden": (403, "You may not do this to that object."),
    "not_found": (404, "No such object (or not yours)."),
    "conflict": (409, "The object changed since the version you edited."),
    "cluster_unavailable": (503, "The cluster did not answer, or refused the portal."),
}


class DomainError(Exception):
    """A request broke a rule; nothing was written."""

    codes: dict[str, tuple[int, str]] = CODES
    default_code = "invalid"

    def __init__(self, detail: str, *, code: str | None = None, field: str | None = None):
        code = code or self.default_code
        if code not in self.codes:
            raise ValueError(f"undocumented error code {code!r}")
        self.code, self.detail, self.field = code, detail, field
        super().__init__(detail)

    @property
    def status(self) -> int:
        return self.codes[self.code][0]

    def extra(self) -> dict[str, Any]:
        """Keys this kind of error adds to the API body."""
        return {}


class InvalidInput(DomainError):
    """Input broke one or more rules. ``errors`` maps a field path to its messages.

    Field paths follow the API body: ``fair_weight``, ``quotas[2].nominal``,
    ``preemption.borrow_within_cohort``. ``field`` is the first of them.
    """

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors or {NON_FIELD: ["invalid input"]}
        key, messages = next(iter(self.errors.items()))
        field = None if key == NON_FIELD else key
        detail = f"{field}: {messages[0]}" if field else messages[0]
        more = len(self.errors) - 1
        if more > 0:
            detail += f" (and {more} more field{'s' if more > 1 else ''})"
        super().__init__(detail, code="invalid", field=field)

    @classmethod
    def single(cls, field: str, message: str) -> InvalidInput:
        return cls({field: [message]})

    def extra(self) -> dict[str, Any]:
        return {"errors": self.errors}


class NotAllowed(DomainError, PermissionDenied):
    """The actor may not perform this action. A page answers it with Django's 403."""

    default_code = "forbidden"


class NotFound(DomainError):
    default_code = "not_found"


class Conflict(DomainError):
    """The object changed since the version the caller edited."""

    default_code = "conflict"

    def __init__(self, detail: str, *, current_version: int, changes: list[dict]):
        self.current_version, self.changes = current_version, changes
        super().__init__(detail)

    def extra(self) -> dict[str, Any]:
        return {
            "current_version": self.current_version,
            "changes_since_your_version": self.changes,
        }


class Unavailable(DomainError):
    """A system we depend on (the cluster) did not answer; retrying later may work."""

    default_code = "cluster_unavailable"
