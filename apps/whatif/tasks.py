"""Celery entry points: fan a run's replays out (a group, one replay per task), then gather.

A replay is one cohort tree under one policy variant (``apps.whatif.runs``),
so even a single draft spreads over as many workers as the cluster has trees.

The gather is counted in the database rather than with a chord, so it needs no
result backend (the embedded default has none): the replay that stores the last
result sends ``finish_whatif_task``. Each task takes ids, re-reads its rows and
does nothing if its work is already stored, so duplicate or late deliveries are
harmless (two "last" replays only send a second, no-op finish).
"""

from __future__ import annotations

import time
from functools import lru_cache

from celery import group, shared_task
from django.conf import settings
from django.dispatch import receiver

from apps.reports.prices import window_prices
from apps.whatif import heartbeat, recorded_trace, runs, services, suggestion_services
from apps.whatif.choices import ReplayStatus, RunStatus, SuggestionState
from apps.whatif.models import WhatIfRun


@shared_task(soft_time_limit=60, ignore_result=True)
def start_whatif_task(run_id: int) -> None:
    """Create the replay rows and launch every pending replay as its own task."""
    run = WhatIfRun.objects.filter(pk=run_id, status__in=RunStatus.active_values()).first()
    if run is None:
        return
    pending = services.plan_replays(run, runs.replay_keys(run))
    if pending:
        group(replay_task.s(run_id, key) for key in pending).apply_async()
    else:
        finish_whatif_task.delay(run_id)


@shared_task(
    soft_time_limit=settings.QM_WHATIF_REPLAY_TIME_LIMIT_SECONDS,
    ignore_result=True,
)
def replay_task(run_id: int, key: str) -> str:
    """Replay the run's history under one policy variant and store the figures."""
    run = WhatIfRun.objects.get(pk=run_id)
    # A run the sweep failed (its worker was lost) stays failed: a late redelivery of
    # the lost message must not compute for nothing.
    if run.status != RunStatus.RUNNING:
        return key
    if not run.replays.filter(key=key, status=ReplayStatus.PENDING).exists():
        return key
    started = time.monotonic()
    try:
        with heartbeat.beating(run_id, key):
            result = runs.compute_replay(run, key, _trace_of(run))
    except Exception as exc:
        services.fail_whatif(run, f"replay {key} failed: {exc}")
        raise
    seconds = time.monotonic() - started
    services.record_replay(run, key, result=result, seconds=seconds)
    if not run.replays.exclude(status=ReplayStatus.DONE).exists():
        finish_whatif_task.delay(run_id)
    return key


@lru_cache(maxsize=2)
def _cached_trace(run_id: int, created_at, start, end) -> tuple:
    return tuple(recorded_trace.load_trace(start, end))


def _trace_of(run: WhatIfRun) -> list:
    """The run's history, read once per worker process: its trees' replays share it."""
    return list(_cached_trace(run.pk, run.created_at, run.window_start, run.window_end))


@shared_task(soft_time_limit=120, ignore_result=True)
def finish_whatif_task(run_id: int) -> None:
    """Summarise once every replay is stored; a no-op for finished runs."""
    run = WhatIfRun.objects.get(pk=run_id)
    if run.status != RunStatus.RUNNING:
        return
    rows = {r.key: r for r in run.replays.all()}
    if any(r.status != ReplayStatus.DONE for r in rows.values()):
        services.fail_whatif(run, "not every replay finished")
        return
    prices = window_prices(run.window_start, run.window_end)
    services.finish_whatif(run, runs.summarize(run, rows, _trace_of(run), prices))


@shared_task(soft_time_limit=60, ignore_result=True)
def sweep_stuck_whatifs_task() -> list[int]:
    """Fail the runs whose replay lost its worker; returns their ids."""
    return services.fail_stuck_whatifs()


@shared_task(soft_time_limit=120, ignore_result=True, expires=600)
def score_eta_predictions_task() -> int:
    """Compare stored ETAs with the admissions recorded since; returns how many were scored."""
    from apps.whatif.start_predictions import score_eta_predictions

    return score_eta_predictions()


@shared_task(soft_time_limit=600, ignore_result=True, expires=6 * 3600)
def look_for_suggestions_task() -> int:
    """The weekly look: store the rules' suggestions over every queue, start their what-ifs.

    Safe to run twice: a suggestion already stored for the same weeks is re-judged, not
    added, and its what-if is started only once. Returns how many are offered.
    """
    found = suggestion_services.look_for_suggestions(actor=None)
    return sum(s.state == SuggestionState.OFFERED for s in found)


@receiver(services.run_created)
def _start_replays(sender, run_id: int, **_: object) -> None:
    start_whatif_task.delay(run_id)
