"""The one module that talks to OpenCost's Allocation API (``OPENCOST_URL``).

Used for what Prometheus series don't give per team: the non-GPU part of each
namespace's cost (CPU, RAM, storage, network) and OpenCost's own GPU cost to
cross-check ours. Failures come out as ``CostUnavailable`` with a reason.
"""

from __future__ import annotations

from datetime import datetime

import requests
from django.conf import settings


class CostUnavailable(Exception):
    """OpenCost is not configured, unreachable or answered something unusable."""


def allocation_by_namespace(start: datetime, end: datetime) -> dict[str, dict[str, float]]:
    """namespace → {"gpu_cost", "gpu_hours", "total_cost"} accumulated over [start, end)."""
    url = settings.OPENCOST_URL
    if not url:
        raise CostUnavailable("OPENCOST_URL is not set")
    params = {
        "window": f"{int(start.timestamp())},{int(end.timestamp())}",
        "aggregate": "namespace",
        "accumulate": "true",
        "resolution": "1m",
    }
    try:
        response = requests.get(
            f"{url.rstrip('/')}/allocation/compute",
            params=params,
            timeout=settings.QM_PROMETHEUS_TIMEOUT_SECONDS,
        )
        response.raise_for_status()
        body = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise CostUnavailable(f"OpenCost allocation API failed at {url}: {exc}") from None
    return parse_allocations(body)


def parse_allocations(body: dict) -> dict[str, dict[str, float]]:
    """Sum the sets of an Allocation API answer per namespace (``__idle__`` etc. skipped)."""
    totals: dict[str, dict[str, float]] = {}
    for allocation_set in body.get("data") or []:
        for name, alloc in (allocation_set or {}).items():
            if name.startswith("__") or not isinstance(alloc, dict):
                continue
            row = totals.setdefault(name, {"gpu_cost": 0.0, "gpu_hours": 0.0, "total_cost": 0.0})
            for key, field in (
                ("gpu_cost", "gpuCost"),
                ("gpu_hours", "gpuHours"),
                ("total_cost", "totalCost"),
            ):
                row[key] += float(alloc.get(field) or 0.0)
    return totals
