"""Pure: a flavor's $/GPU-hour from the price of the nodes it selects.

A flavor selects the nodes carrying all of its ``nodeLabels``. kube-state-metrics
and OpenCost export node labels on ``kube_node_labels`` as ``label_<name>``, the
name sanitised to a Prometheus label name (every character outside ``[a-zA-Z0-9_]``
becomes ``_``). The price is the GPU-weighted mean of the selected nodes' OpenCost
``node_gpu_hourly_cost``. A flavor without node labels, or whose nodes have no
price, gets none here: the report shows it as unpriced rather than guess.
"""

from __future__ import annotations

import re

_INVALID = re.compile(r"[^a-zA-Z0-9_]")


def metric_label(name: str) -> str:
    """``gpu.nvidia.com/class`` → ``label_gpu_nvidia_com_class``."""
    return "label_" + _INVALID.sub("_", name)


def selects(flavor_labels: dict[str, str], node_labels: dict[str, str]) -> bool:
    return bool(flavor_labels) and all(
        node_labels.get(metric_label(k)) == v for k, v in flavor_labels.items()
    )


def flavor_prices(
    flavors: dict[str, dict[str, str]],
    labels: dict[str, dict[str, str]],
    prices: dict[str, tuple[float, float]],
) -> dict[str, float]:
    """flavor → $/GPU-hour. ``flavors``: flavor → nodeLabels; ``labels``: node →
    ``kube_node_labels`` labels; ``prices``: node → ($/GPU-hour, GPUs)."""
    out = {}
    for flavor, wanted in flavors.items():
        nodes = [n for n in prices if selects(wanted, labels.get(n, {}))]
        gpus = sum(prices[n][1] for n in nodes)
        if gpus > 0:
            out[flavor] = sum(prices[n][0] * prices[n][1] for n in nodes) / gpus
    return out
