"""Gauges computed from the database when Prometheus scrapes, so every web process
answers the same and nothing has to be kept up to date between scrapes.

Other apps add theirs with ``register_gauge`` (typically in ``AppConfig.ready``)::

    register_gauge(
        "qm_history_recorder_lag_seconds",
        "Seconds since the history recorder last wrote a sample.",
        lambda: (timezone.now() - latest_sample_time()).total_seconds(),
    )

A function returns a number, or ``{(label values…): number}`` with ``labels`` given.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScrapeGauge:
    name: str
    documentation: str
    read: Callable[[], float | dict[tuple[str, ...], float] | None]
    labels: tuple[str, ...] = ()


_GAUGES: dict[str, ScrapeGauge] = {}


def register_gauge(
    name: str,
    documentation: str,
    read: Callable[[], float | dict[tuple[str, ...], float] | None],
    labels: tuple[str, ...] = (),
) -> None:
    """Add (or replace, so ``ready()`` may run twice) a scrape-time gauge."""
    _GAUGES[name] = ScrapeGauge(name, documentation, read, labels)


class DatabaseCollector(Collector):
    """Yields every registered gauge; one that fails is skipped and logged, not fatal."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        for gauge in list(_GAUGES.values()):
            try:
                value = gauge.read()
            except Exception:  # a broken gauge must not take the whole scrape down
                log.exception("scrape-time gauge %s failed", gauge.name)
                continue
            if value is None:
                continue
            family = GaugeMetricFamily(gauge.name, gauge.documentation, labels=gauge.labels)
            if isinstance(value, dict):
                for label_values, number in sorted(value.items()):
                    family.add_metric(list(label_values), float(number))
            else:
                family.add_metric([], float(value))
            yield family


def queue_sync_states() -> dict[tuple[str, ...], float]:
    """Queues per sync state (every state present, zero included)."""
    from django.conf import settings

    from apps.queues.choices import SyncState
    from apps.queues.models import Queue
    from apps.queues.reconcile.status import overview_states

    counts: Counter[str] = Counter()
    if settings.QM_CLUSTER_SYNC:
        states = overview_states(list(Queue.objects.only("pk", "version")))
        counts.update(state for state, _ in states.values())
    return {(state,): counts.get(state, 0) for state in SyncState.values}


def last_reconcile() -> dict[tuple[str, ...], float] | None:
    """When the last run finished, and whether it could read the cluster."""
    from apps.queues.models import SyncRun

    run = SyncRun.objects.only("finished_at", "error").first()
    if run is None:
        return None
    return {("finished",): run.finished_at.timestamp(), ("failed",): 1.0 if run.error else 0.0}


def install_defaults() -> None:
    register_gauge(
        "qm_queue_sync_state",
        "Queues in each sync state (in_sync, pending, drift_repaired, error), read at scrape time.",
        queue_sync_states,
        labels=("state",),
    )
    register_gauge(
        "qm_reconcile_last_run",
        "The last reconcile run: finished = its end as a Unix time; failed = 1 if it could "
        "not read the cluster.",
        last_reconcile,
        labels=("field",),
    )
