"""Text input bounded by the column it is stored in, checked before anything is written.

PostgreSQL refuses an overlong value with a DataError (a 500) and SQLite stores it
silently; both are answered here, at the edge, as a rule naming the limit. A
``TextField`` has no limit of its own, so free text (reasons, comments, descriptions)
is bounded by ``TEXT_LIMIT``: a reason is a paragraph, and an unbounded one would bloat
the audit log, its CSV exports and every page that shows it.
"""

from __future__ import annotations

from typing import Any

from django.db import models

TEXT_LIMIT = 5_000


def max_length(model: type[models.Model], field: str) -> int | None:
    column = model._meta.get_field(field)
    if column.max_length is not None:
        return column.max_length
    return TEXT_LIMIT if isinstance(column, models.TextField) else None


def length_error(model: type[models.Model], field: str, value: Any) -> str | None:
    """The rule ``value`` breaks for ``model.field``'s column, or None."""
    return _too_long(value, max_length(model, field))


def text_errors(**texts: Any) -> dict[str, list[str]]:
    """Each free-text input (named as the caller's input names it) over ``TEXT_LIMIT``,
    with its rule: ``{"comment": ["must be at most 5000 characters …"]}``."""
    return {
        name: [problem]
        for name, value in texts.items()
        if (problem := _too_long(value, TEXT_LIMIT)) is not None
    }


def _too_long(value: Any, limit: int | None) -> str | None:
    if isinstance(value, str) and limit is not None and len(value) > limit:
        return (
            f"must be at most {limit} characters (this has {len(value)}); "
            "link to a longer text instead of pasting it"
        )
    return None
