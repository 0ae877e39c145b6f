"""The informer's one Celery entry point."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from core.kube import KubeError
from informer.run import run_informer


@shared_task(soft_time_limit=600)
def run_informer_task(seconds: int | None = None) -> dict:
    """Follow the cluster for a bounded time for every enabled subscriber (resumable)."""
    seconds = seconds or settings.QM_INFORMER_WATCH_SECONDS
    try:
        result = run_informer(seconds=seconds)
    except KubeError as exc:
        return {"error": exc.describe()}  # the next scheduled run resumes from the cursors
    if "skipped" not in result:
        # Hand over now, not at the next beat tick: what happens in between would wait
        # for it (replayed, not lost). Beat's runs restart the chain if it breaks; while
        # it holds, they find the lease taken and skip, so only one chain ever runs.
        run_informer_task.apply_async(kwargs={"seconds": seconds}, expires=seconds)
    return result
