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
