"""The one error vocabulary: every rule a request can break is a ``DomainError``.

A domain error carries a machine-readable ``code``, the input ``field`` at fault (or
None), a ``detail`` for people and the HTTP ``status`` the API answers with. Services
raise them before writing anything. ``core.api_errors`` turns any of them into the API
body ``{"code", "field", "detail"}`` (plus the keys ``extra()`` adds); ``core.pages``
turns them into form errors and page messages. Nothing else translates them.

Every code of every app is in the one table ``CODES``: its status, the kind of error
that carries it and what it means. The kinds are the classes below, so code that catches
``NotAllowed`` catches every refusal of permission, whichever app raised it; an error
refuses a code its table row does not give to its kind.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from django.core.exceptions import PermissionDenied

NON_FIELD = "non_field_errors"


class DomainError(Exception):
    """A request broke a rule; nothing was written."""

    default_code = "invalid"

    def __init__(self, detail: str, *, code: str | None = None, field: str | None = None):
        code = code or self.default_code
        row = CODES.get(code)
        if row is None:
            raise ValueError(f"undocumented error code {code!r}")
        if not isinstance(self, row.kind):
            raise ValueError(f"{code!r} is a {row.kind.__name__}, not a {type(self).__name__}")
        self.code, self.detail, self.field = code, detail, field
        super().__init__(detail)

    @property
    def status(self) -> int:
        return CODES[self.code].status

    def extra(self) -> dict[str, Any]:
        """Keys this kind of error adds to the API body."""
        return {}


class RuleBroken(DomainError):
    """The request broke one rule, named by ``code``, about one input, ``field``."""

    def __init__(self, detail: str, *, code: str, field: str | None = None):
        super().__init__(detail, code=code, field=field)


class InvalidInput(RuleBroken):
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
        DomainError.__init__(self, detail, code="invalid", field=field)

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


class ErrorCode(NamedTuple):
    status: int
    kind: type[DomainError]
    meaning: str


CODES: dict[str, ErrorCode] = {
    # Every app's.
    "invalid": ErrorCode(
        400,
        RuleBroken,
        "Input broke a rule; `field` names it (with `errors`, every bad field path).",
    ),
    "unknown_field": ErrorCode(
        400, RuleBroken, "The body has a field the endpoint does not declare (no raw pod specs)."
    ),
    "forbidden": ErrorCode(403, NotAllowed, "You may not do this to that object."),
    "not_found": ErrorCode(404, NotFound, "No such object (or not yours)."),
    "conflict": ErrorCode(409, Conflict, "The object changed since the version you edited."),
    "cluster_unavailable": ErrorCode(
        503, Unavailable, "The cluster did not answer, or refused the portal."
    ),
    # Notebooks and jobs (docs/notebooks.md).
    "image_not_allowed": ErrorCode(400, RuleBroken, "The image is not on the admin allow-list."),
    "flavor_not_in_pool": ErrorCode(
        400, RuleBroken, "The interactive pool has no GPUs of that flavor."
    ),
    "flavor_not_in_queue": ErrorCode(
        400, RuleBroken, "The team's queue has no quota on that flavor."
    ),
    "never_fits": ErrorCode(
        400,
        RuleBroken,
        "More than the queue could ever get, even borrowing all it may, or than the cluster has.",
    ),
    "ttl_too_long": ErrorCode(
        400, RuleBroken, "The requested lifetime exceeds the pool's maximum."
    ),
    "profile_not_found": ErrorCode(400, RuleBroken, "No such CPU/memory profile."),
    "template_not_found": ErrorCode(400, RuleBroken, "No such job template."),
    "team_required": ErrorCode(400, RuleBroken, "You belong to several teams; say which one."),
    "namespace_not_allowed": ErrorCode(
        400, RuleBroken, "That namespace does not belong to the team."
    ),
    "tier_not_allowed": ErrorCode(
        403, NotAllowed, "Your role may not submit at that priority tier."
    ),
    "not_a_member": ErrorCode(403, NotAllowed, "The user is not a member of that team."),
    "launcher_not_allowed": ErrorCode(
        403, NotAllowed, "This token may not act for that user or team."
    ),
    "quota_exceeded": ErrorCode(
        409, RuleBroken, "The user's notebook or GPU limit would be exceeded."
    ),
    "pool_full": ErrorCode(
        409, RuleBroken, "The interactive pool has no free GPUs of that flavor."
    ),
    "pool_not_configured": ErrorCode(409, RuleBroken, "No interactive pool is enabled."),
    "not_renewable": ErrorCode(
        409, RuleBroken, "The notebook is not running, so it cannot be renewed."
    ),
    "not_active": ErrorCode(409, RuleBroken, "The object is already stopped or finished."),
    # Policy suggestions (docs/suggestions.md).
    "not_open": ErrorCode(409, RuleBroken, "The suggestion is already dismissed or superseded."),
    # Users (docs/operations.md#users).
    "local_accounts_off": ErrorCode(
        409, RuleBroken, "Users come from the identity provider (OIDC) at first sign-in."
    ),
    "last_admin": ErrorCode(409, RuleBroken, "That would leave no active platform admin."),
    "idempotency_key_reused": ErrorCode(
        422, RuleBroken, "This Idempotency-Key was used for a different request."
    ),
}
