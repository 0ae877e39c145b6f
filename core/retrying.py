"""Calling the cluster again after a temporary failure, with a capped exponential backoff.

For one-off steps that must succeed before anything else can (``seed_demo``'s first
reconcile, ``finish_demo_week``): a timeout, a refused connection or a 5xx is retried
(``KubeError.transient``); a permanent error is raised at once for the caller to show.
Celery tasks retry through Celery instead, waiting ``task_countdown``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings

from core.kube import KubeError

T = TypeVar("T")


def backoff_seconds(attempt: int, *, first: float = 1.0, cap: float = 30.0) -> float:
    """``first`` after the first failure, doubling with each one after it, at most ``cap``."""
    return min(cap, first * 2 ** max(0, attempt - 1))


def task_countdown(retries: int) -> float:
    """Seconds before a Celery task's next try after ``retries`` earlier ones: doubling,
    capped by ``QM_RECONCILE_BACKOFF_MAX_SECONDS``, with jitter so that workers that
    failed together do not all come back in the same second."""
    cap = settings.QM_RECONCILE_BACKOFF_MAX_SECONDS
    return backoff_seconds(retries + 1, cap=cap) * random.uniform(0.5, 1.0)


def retry_transient(
    call: Callable[[], T],
    *,
    on_retry: Callable[[KubeError, float], None],
    first: float = 1.0,
    cap: float = 30.0,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``call()`` until it returns; ``on_retry(error, delay)`` before each wait.

    No attempt limit: whoever runs the step (the launcher, Ctrl-C) decides when to stop,
    and a cluster that never answers is a dead cluster, which the launcher handles.
    """
    attempt = 0
    while True:
        try:
            return call()
        except KubeError as exc:
            if not exc.transient:
                raise
            attempt += 1
            delay = backoff_seconds(attempt, first=first, cap=cap)
            on_retry(exc, delay)
            sleep(delay)


def report_to(write: Callable[[str], None]) -> Callable[[KubeError, float], None]:
    """An ``on_retry`` that says what failed and when the next try is, e.g. on stderr."""

    def report(error: KubeError, delay: float) -> None:
        write(f"the cluster did not answer ({error.describe()}): trying again in {delay:g} s")

    return report
