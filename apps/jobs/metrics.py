"""GPU utilisation of notebook pods, read from DCGM metrics through Prometheus's HTTP API.

A thin PromQL reader with ``requests`` until ``apps/reports/prometheus.py`` offers the
same; only ``apps/reports/prometheus.py`` may import ``prometheus_api_client``.
"""

from __future__ import annotations

from datetime import datetime

import requests
from django.conf import settings

# Highest reading per pod over the window. DCGM_FI_DEV_GPU_UTIL is 0–100; series
# without pod attribution (pod="") are GPUs nobody holds and are left out.
PEAK_QUERY = (
    'max by (namespace, pod) (max_over_time(DCGM_FI_DEV_GPU_UTIL{{pod=~"nb-.+"}}[{window}m]))'
)


class MetricsError(Exception):
    """Prometheus could not be asked or did not answer a usable result."""


def query(promql: str, *, at: datetime) -> list[dict]:
    url = f"{settings.PROMETHEUS_URL.rstrip('/')}/api/v1/query"
    try:
        response = requests.get(
            url,
            params={"query": promql, "time": at.timestamp()},
            timeout=settings.QM_PROMETHEUS_TIMEOUT_SECONDS,
        )
        body = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise MetricsError(f"Prometheus at {url} did not answer: {exc}") from None
    if response.status_code != 200 or body.get("status") != "success":
        raise MetricsError(f"Prometheus refused {promql!r}: {body.get('error', response.text)}")
    return body["data"]["result"]


def peak_gpu_utilization(window_minutes: int, *, at: datetime) -> dict[tuple[str, str], float]:
    """(namespace, pod) → highest GPU utilisation in the ``window_minutes`` before ``at``."""
    rows = query(PEAK_QUERY.format(window=int(window_minutes)), at=at)
    return {
        (row["metric"].get("namespace", ""), row["metric"].get("pod", "")): float(row["value"][1])
        for row in rows
    }
