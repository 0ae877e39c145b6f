"""Idempotency keys, one way for notebooks, jobs and sweeps alike.

A retry with the same key and body gets the first object back (``replayed``); the
same key with another body is refused. Both hold under concurrent retries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

from django.db import IntegrityError, transaction

from apps.jobs.models.base import IdempotentRequest
from apps.jobs.services.common import Principal, request_hash
from core.errors import RuleBroken

M = TypeVar("M", bound=IdempotentRequest)


class Submission(NamedTuple, Generic[M]):
    """What a submission (a job, a notebook request, a sweep) returns: the row, and whether it
    is the one an earlier request with the same key made."""

    record: M
    replayed: bool


@dataclass(frozen=True)
class Idempotency(Generic[M]):
    """One request's key, as sent by ``sender``, with ``digest`` the hash of its body.

    Keys are unique per sender: the row's ``requested_by`` (the owner, or a launcher's
    user acting for them), the field the base model's unique constraint pairs with
    ``idempotency_key``. Jobs and notebooks build theirs with ``of``.
    """

    model: type[M]
    key: str
    digest: str
    sender: Principal

    @classmethod
    def of(cls, model: type[M], key: str, *, owner, spec, actor: Principal) -> Idempotency[M]:
        """The key ``actor`` sent with ``spec``, a request for ``owner``."""
        return cls(model, key, request_hash(owner.pk, spec), sender=actor)

    def replay(self) -> Submission[M] | None:
        """What an earlier request with this key made, if any; 422 if its body differed."""
        if not self.key:
            return None
        existing = self.model.objects.filter(
            idempotency_key=self.key, requested_by=self.sender.user
        ).first()
        if existing is None:
            return None
        if existing.request_hash != self.digest:
            raise RuleBroken(
                "this Idempotency-Key was already used for a different request",
                code="idempotency_key_reused",
            )
        return Submission(existing, replayed=True)

    def insert(self, obj: M) -> Submission[M]:
        """Insert ``obj`` as the sender's, under this key, or return what a concurrent
        request made first.

        Race: two requests with one key both find no earlier object and both insert. The
        unique constraint on (requested_by, idempotency_key) admits one; on PostgreSQL the other
        waits for it to commit and then fails. Only its savepoint is rolled back, and the
        ``replay`` lookup (a new statement under READ COMMITTED) sees the winner's row.
        """
        obj.idempotency_key, obj.request_hash = self.key, self.digest
        obj.requested_by, obj.via_token = self.sender.user, self.sender.token
        try:
            with transaction.atomic():
                obj.save(force_insert=True)
        except IntegrityError:
            earlier = self.replay()
            if earlier is None:
                raise  # not the idempotency constraint
            return earlier
        return Submission(obj, replayed=False)
