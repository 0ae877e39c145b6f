"""Domain errors of notebooks and jobs, in the one vocabulary of ``core.errors``.

``core.api_errors`` renders them as ``{"code", "field", "detail"}`` with ``status``; pages show
``detail`` (``core.pages``). ``CODES`` is the documented list (the OpenAPI schema enumerates it).
"""

from __future__ import annotations

from core.errors import DomainError

CODES: dict[str, tuple[int, str]] = {
    "invalid": (400, "A field is missing or malformed; `field` names it."),
    "unknown_field": (400, "The body has a field the API does not accept (no raw pod specs)."),
    "image_not_allowed": (400, "The image is not on the admin allow-list."),
    "flavor_not_in_pool": (400, "The interactive pool has no GPUs of that flavor."),
    "flavor_not_in_queue": (400, "The team's queue has no quota on that flavor."),
    "never_fits": (
        400,
        "More than the queue could ever get, even borrowing all it may, or than the cluster has.",
    ),
    "ttl_too_long": (400, "The requested lifetime exceeds the pool's maximum."),
    "profile_not_found": (400, "No such CPU/memory profile."),
    "template_not_found": (400, "No such job template."),
    "tier_not_allowed": (403, "Your role may not submit at that priority tier."),
    "team_required": (400, "You belong to several teams; say which one."),
    "namespace_not_allowed": (400, "That namespace does not belong to the team."),
    "not_a_member": (403, "The user is not a member of that team."),
    "launcher_not_allowed": (403, "This token may not act for that user or team."),
    "forbidden": (403, "You may not do this to that object."),
    "quota_exceeded": (409, "The user's notebook or GPU limit would be exceeded."),
    "pool_full": (409, "The interactive pool has no free GPUs of that flavor."),
    "pool_not_configured": (409, "No interactive pool is enabled."),
    "not_renewable": (409, "The notebook is not running, so it cannot be renewed."),
    "not_active": (409, "The object is already stopped or finished."),
    "idempotency_key_reused": (422, "This Idempotency-Key was used for a different request."),
}


class JobsError(DomainError):
    """A notebook or job request broke a rule; nothing was written."""

    codes = CODES

    def __init__(self, code: str, message: str, *, field: str | None = None):
        super().__init__(message, code=code, field=field)
