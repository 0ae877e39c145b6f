"""The one module that imports ``prometheus_api_client``: DCGM usage, OpenCost's
price series, kube-state-metrics' pod owners and node labels and Kueue's wait histogram, with few aggregated range queries per week,
and the peak GPU utilisation of notebook pods that idle culling reads. It is in the shared
layer because two apps read it (the reports, and notebooks' idle culling).

Every query normalises dcgm-exporter's label spellings first: ``exported_namespace``
/ ``exported_pod`` (a ServiceMonitor without honorLabels) replace ``namespace`` /
``pod``, and ``Hostname`` (exporters up to 4.5.x) becomes ``hostname``. Failures
come out as ``MetricsUnavailable`` with a reason a report can show.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import requests
from django.conf import settings
from prometheus_api_client import PrometheusApiClientException, PrometheusConnect
from urllib3.util.retry import Retry

BY = "namespace, pod, hostname"
QUANTILES = (0.5, 0.9, 0.95, 0.99)


class MetricsUnavailable(Exception):
    """Prometheus is not configured, unreachable or refused the query."""


@dataclass(frozen=True)
class Series:
    namespace: str
    pod: str
    hostname: str
    points: tuple[tuple[float, float], ...]


def normalised(selector: str) -> str:
    """``selector`` with exported_* and Hostname folded into namespace/pod/hostname."""
    expr = selector
    for target, source in (
        ("namespace", "exported_namespace"),
        ("pod", "exported_pod"),
        ("hostname", "Hostname"),
    ):
        expr = f'label_replace({expr}, "{target}", "$1", "{source}", "(.+)")'
    return expr


def usage_queries() -> dict[str, str]:
    """One aggregated range query per quantity (never one per workload)."""
    mig = normalised('DCGM_FI_PROF_GR_ENGINE_ACTIVE{GPU_I_PROFILE!=""}')
    return {
        "util": f"avg by ({BY}) ({normalised('DCGM_FI_DEV_GPU_UTIL')}) / 100",
        "mig_util": f"avg by ({BY}) ({mig})",
        "memory_mib": f"sum by ({BY}) ({normalised('DCGM_FI_DEV_FB_USED')})",
        "power_watts": f"sum by ({BY}) ({normalised('DCGM_FI_DEV_POWER_USAGE')})",
    }


def price_queries() -> dict[str, str]:
    """OpenCost: $/h and GPUs per pod (its series carry namespace/pod; join on node)."""
    cost = "container_gpu_allocation * on (node) group_left() avg by (node) (node_gpu_hourly_cost)"
    return {
        "gpu_cost_rate": f"sum by (namespace, pod) ({normalised(cost)})",
        "gpu_allocation": f"sum by (namespace, pod) ({normalised('container_gpu_allocation')})",
    }


GPU_RESOURCES = 'resource=~"nvidia_com_.+"'  # kube-state-metrics' sanitised resource names


def placement_queries() -> dict[str, str]:
    """kube-state-metrics: GPUs allocatable and bound per node, and what unschedulable
    pods ask for (PodScheduled=False, reason Unschedulable), per resource.

    OpenCost emits the same kube_* series as kube-state-metrics by default; ``max by``
    the identifying labels first, so two exporters never count twice.
    """
    one = "namespace, pod, container, resource"
    requests = f"max by ({one}) (kube_pod_container_resource_requests{{{GPU_RESOURCES}}})"
    bound = (
        f'max by ({one}, node) (kube_pod_container_resource_requests{{{GPU_RESOURCES}, node!=""}})'
    )
    live = 'max by (namespace, pod) (kube_pod_status_phase{phase=~"Pending|Running"})'
    stuck = "max by (namespace, pod) (kube_pod_status_unschedulable)"
    return {
        "allocatable": f"max by (node, resource) (kube_node_status_allocatable{{{GPU_RESOURCES}}})",
        "bound": f"sum by (node, resource) ({bound} * on (namespace, pod) group_left() {live})",
        "unschedulable": f"sum by (namespace, pod, resource) ({requests} * on (namespace, pod) "
        f"group_left() {stuck}) > 0",
    }


def range_labelled(
    queries: dict[str, str], start: datetime, end: datetime
) -> dict[str, list[tuple[dict[str, str], tuple[tuple[float, float], ...]]]]:
    """Like ``range_series`` but keeping every label of each result series."""
    client = _connect()
    step = f"{settings.QM_PROMETHEUS_STEP_SECONDS}s"
    return {
        name: [
            (item.get("metric") or {}, tuple((float(t), float(v)) for t, v in item["values"]))
            for item in _run(client.custom_query_range, query, start, end, step)
        ]
        for name, query in queries.items()
    }


def _connect() -> PrometheusConnect:
    url = settings.PROMETHEUS_URL
    if not url:
        raise MetricsUnavailable("PROMETHEUS_URL is not set")
    # No retries: a week's report should say "Prometheus down" quickly, not after 6 s × N.
    return PrometheusConnect(
        url=url, retry=Retry(total=0), timeout=settings.QM_PROMETHEUS_TIMEOUT_SECONDS
    )


def _run(call, *args, **kwargs):
    try:
        return call(*args, **kwargs)
    except PrometheusApiClientException as exc:
        raise MetricsUnavailable(f"Prometheus refused the query: {exc}") from None
    except (requests.RequestException, OSError) as exc:
        raise MetricsUnavailable(
            f"Prometheus unreachable at {settings.PROMETHEUS_URL}: {exc}"
        ) from None


def _series(result: list[dict]) -> list[Series]:
    out = []
    for item in result:
        labels = item.get("metric") or {}
        points = tuple((float(t), float(v)) for t, v in item.get("values") or ())
        out.append(
            Series(
                labels.get("namespace", ""),
                labels.get("pod", ""),
                labels.get("hostname", ""),
                points,
            )
        )
    return out


def range_series(
    queries: dict[str, str], start: datetime, end: datetime
) -> dict[str, list[Series]]:
    """Run each range query over [start, end] at ``QM_PROMETHEUS_STEP_SECONDS``."""
    client = _connect()
    step = f"{settings.QM_PROMETHEUS_STEP_SECONDS}s"
    return {
        name: _series(_run(client.custom_query_range, query, start, end, step))
        for name, query in queries.items()
    }


def pod_owners(start: datetime, end: datetime) -> dict[tuple[str, str], str]:
    """(namespace, pod) → the name of the Job or StatefulSet that owned it, from
    kube-state-metrics' ``kube_pod_owner`` over [start, end] (empty where it is not scraped)."""
    window = f"{max(1, int((end - start).total_seconds()))}s"
    owned = 'kube_pod_owner{owner_kind=~"Job|StatefulSet"}'
    query = f"max by (namespace, pod, owner_name) (max_over_time({owned}[{window}]))"
    result = _run(_connect().custom_query, query, params={"time": end.timestamp()})
    return {
        (item["metric"].get("namespace", ""), item["metric"].get("pod", "")): item["metric"].get(
            "owner_name", ""
        )
        for item in result
        if item["metric"].get("owner_name")
    }


def observations_in_window(counter: str, window: str) -> str:
    """Per series, how much ``counter`` grew over ``[t - window, t]``, first sample included.

    ``increase()`` cannot see the sample that creates a series: Kueue's histogram
    series appear with the first admission of a (ClusterQueue, priority class), already
    counting it, and ``increase()`` only counts growth after that. Instead: the last
    value in the window minus the last value before it (0 for a series born inside the
    window). Series whose counter reset in the window (Kueue restarted) fall back to
    ``increase()``, which handles resets.
    """
    last = f"last_over_time({counter}[{window}])"
    before = f"last_over_time({counter}[{window}] offset {window})"
    exact = f"(({last} - {before}) or {last})"
    return f"(({exact} unless (resets({counter}[{window}]) > 0)) or increase({counter}[{window}]))"


def node_gpu_prices(start: datetime, end: datetime) -> dict[str, tuple[float, float]]:
    """node → (mean $/GPU-hour, mean GPUs) over [start, end] from OpenCost's
    ``node_gpu_hourly_cost`` and ``node_gpu_count`` (GPUs 1 where the count is missing)."""
    window = f"{max(1, int((end - start).total_seconds()))}s"
    client, at = _connect(), {"time": end.timestamp()}
    prices = _by_node(
        _run(client.custom_query, _node_avg("node_gpu_hourly_cost", window), params=at)
    )
    counts = _by_node(_run(client.custom_query, _node_avg("node_gpu_count", window), params=at))
    return {node: (price, counts.get(node, 1.0)) for node, price in prices.items()}


def _node_avg(metric: str, window: str) -> str:
    return f"avg by (node) (avg_over_time({metric}[{window}]))"


def _by_node(result: list[dict]) -> dict[str, float]:
    return {
        item["metric"]["node"]: float(item["value"][1])
        for item in result
        if item["metric"].get("node")
    }


def node_labels(start: datetime, end: datetime) -> dict[str, dict[str, str]]:
    """node → its labels as ``kube_node_labels`` carries them (``label_<sanitised name>``),
    newest in [start, end], merged over exporters (kube-state-metrics exports only
    allow-listed labels, OpenCost all); empty where nothing exports it."""
    window = f"{max(1, int((end - start).total_seconds()))}s"
    query = f"last_over_time(kube_node_labels[{window}])"
    result = _run(_connect().custom_query, query, params={"time": end.timestamp()})
    labels: dict[str, dict[str, str]] = {}
    for item in result:
        if node := item["metric"].get("node"):
            found = {k: v for k, v in item["metric"].items() if k.startswith("label_")}
            labels.setdefault(node, {}).update(found)
    return labels


def kueue_wait_quantiles(start: datetime, end: datetime) -> dict[str, dict[str, float]]:
    """What Kueue's own histogram says per ClusterQueue (and ``""`` for all) over the week."""
    client = _connect()
    window = f"{max(1, int((end - start).total_seconds()))}s"
    buckets = observations_in_window("kueue_admission_wait_time_seconds_bucket", window)
    answers: dict[str, dict[str, float]] = {}
    for q in QUANTILES:
        key = f"p{round(q * 100)}"
        for by in ("le, cluster_queue", "le"):
            query = f"histogram_quantile({q}, sum by ({by}) ({buckets}))"
            result = _run(client.custom_query, query, params={"time": end.timestamp()})
            for item in result:
                value = float(item["value"][1])
                if value == value:  # NaN: no admissions in the window
                    queue = item["metric"].get("cluster_queue", "")
                    answers.setdefault(queue, {})[key] = value
    return answers


def peak_gpu_utilization(window_minutes: int, *, at: datetime) -> dict[tuple[str, str], float]:
    """(namespace, pod) → highest GPU utilisation (0–100) of each notebook pod in the
    ``window_minutes`` before ``at``.

    Series without pod attribution (GPUs nobody holds) and pods that are not
    notebooks (``nb-…``) are left out.
    """
    client = _connect()
    peak = f"max_over_time(DCGM_FI_DEV_GPU_UTIL[{int(window_minutes)}m])"
    query = f"max by (namespace, pod) ({normalised(peak)})"
    result = _run(client.custom_query, query, params={"time": at.timestamp()})
    peaks = {}
    for item in result:
        labels = item.get("metric") or {}
        if labels.get("pod", "").startswith("nb-"):
            peaks[(labels.get("namespace", ""), labels["pod"])] = float(item["value"][1])
    return peaks
