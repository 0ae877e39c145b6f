"""Text input bounded by the column it is stored in, checked before anything is written.

PostgreSQL refuses an overlong value with a DataError (a 500) and SQLite stores it
silently; both are answered here, at the edge, as a rule naming the limit.
"""

from __future__ import annotations

from typing import Any

from django.db import models


def max_length(model: type[models.Model], field: str) -> int:
    return model._meta.get_field(field).max_length


def length_error(model: type[models.Model], field: str, value: Any) -> str | None:
    """The rule ``value`` breaks for ``model.field``'s column, or None."""
    limit = max_length(model, field)
    if isinstance(value, str) and limit is not None and len(value) > limit:
        return f"must be at most {limit} characters"
    return None
