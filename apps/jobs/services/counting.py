"""Counting submissions by outcome, one way for batch jobs and notebooks."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.db import transaction

from apps.jobs.services.idempotency import Submission
from core.errors import DomainError
from core.observability.metrics import JOB_REQUESTS, NOTEBOOK_REQUESTS

M = TypeVar("M")
# One counter per kind, named alike: qm_job_requests_total, qm_notebook_requests_total.
REQUESTS = {"job": JOB_REQUESTS, "notebook": NOTEBOOK_REQUESTS}


def counted(kind: str, submit: Callable[[], Submission[M]]) -> Submission[M]:
    """Run ``submit`` and count its outcome on the ``kind``'s requests counter once the
    outcome is final.

    Accepted counts after commit (a rollback later accepted nothing); rejected (a
    ``DomainError``: the request broke a rule) and failed (anything else) count on the
    way out. A replay is the same request again and is not counted twice.
    """
    requests = REQUESTS[kind]
    try:
        submission = submit()
    except DomainError:
        requests.labels(outcome="rejected").inc()
        raise
    except Exception:
        requests.labels(outcome="failed").inc()
        raise
    if not submission.replayed:
        transaction.on_commit(lambda: requests.labels(outcome="accepted").inc())
    return submission
