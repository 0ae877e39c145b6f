"""Idempotency keys, one way for notebooks and jobs alike.

A retry with the same key and body gets the first object back (``replayed``); the
same key with another body is refused. Both hold under concurrent retries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.db import IntegrityError, models, transaction

from apps.jobs.errors import JobsError

M = TypeVar("M", bound=models.Model)


def find_replay(model: type[M], *, key: str, digest: str, **owner) -> M | None:
    """The object an earlier request with ``key`` made, if any; 422 if its body differed."""
    if not key:
        return None
    existing = model.objects.filter(idempotency_key=key, **owner).first()
    if existing is not None and existing.request_hash != digest:
        raise JobsError(
            "idempotency_key_reused",
            "this Idempotency-Key was already used for a different request",
        )
    return existing


def insert_once(obj: M, *, replay: Callable[[], M | None]) -> tuple[M, bool]:
    """Insert ``obj``, or return the object a concurrent request with its key made first.

    Race: two requests with one key both find no earlier object and both insert. The
    unique constraint on (owner, idempotency_key) admits one; on PostgreSQL the other
    waits for it to commit and then fails. Only its savepoint is rolled back, and the
    ``replay`` lookup (a new statement under READ COMMITTED) sees the winner's row.
    """
    try:
        with transaction.atomic():
            obj.save(force_insert=True)
    except IntegrityError:
        existing = replay()
        if existing is None:
            raise  # not the idempotency constraint
        return existing, True
    return obj, False
