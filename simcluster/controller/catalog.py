"""GPU models and prices: what a node's labels say about its GPUs.

The class comes from the flavor's node label ``gpu.nvidia.com/class`` (the
demo cluster's convention); ``nvidia.com/gpu.product`` (GPU feature
discovery) is used when the class is unknown. Prices are $ per GPU-hour —
for MIG nodes per slice, since OpenCost counts each allocated device.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLASS_LABEL = "gpu.nvidia.com/class"
PRODUCT_LABEL = "nvidia.com/gpu.product"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
PRICE_CONFIGMAP = ("kube-system", "simcluster-gpu-prices")


@dataclass(frozen=True)
class GpuModel:
    name: str
    memory_mib: int
    idle_watts: float
    max_watts: float


MODELS = {
    "h100": GpuModel("NVIDIA H100 80GB HBM3", 81559, 70.0, 700.0),
    "a100": GpuModel("NVIDIA A100-SXM4-80GB", 81920, 55.0, 400.0),
    "a100-mig": GpuModel("NVIDIA A100-SXM4-80GB", 81920, 55.0, 400.0),
}
DEFAULT_PRICES = {"h100": 4.00, "a100": 2.50, "a100-mig": 0.40, "default": 2.00}
MIG_MEMORY_MIB = {"1g.10gb": 9728, "2g.20gb": 19968, "3g.40gb": 40192, "7g.80gb": 81408}


def gpu_class(labels: dict[str, str]) -> str:
    return labels.get(CLASS_LABEL) or labels.get(PRODUCT_LABEL, "")


def model_for(labels: dict[str, str]) -> GpuModel:
    known = MODELS.get(labels.get(CLASS_LABEL, ""))
    if known:
        return known
    product = labels.get(PRODUCT_LABEL, "NVIDIA GPU").replace("-", " ")
    return GpuModel(product, 81920, 60.0, 500.0)


def instance_type(labels: dict[str, str]) -> str:
    return labels.get(INSTANCE_TYPE_LABEL) or f"onprem-{gpu_class(labels) or 'gpu'}"


def load_prices(path: str | Path | None) -> dict[str, float]:
    """Defaults, overridden by a JSON file ``{"h100": 4.2, ...}`` when given."""
    prices = dict(DEFAULT_PRICES)
    if path:
        prices.update({k: float(v) for k, v in json.loads(Path(path).read_text()).items()})
    return prices


def prices_with_configmap(
    prices: dict[str, float], configmap: dict[str, Any] | None
) -> dict[str, float]:
    """A ConfigMap ``kube-system/simcluster-gpu-prices`` (class -> $/GPU-hour) wins over flags."""
    merged = dict(prices)
    for key, value in ((configmap or {}).get("data") or {}).items():
        try:
            merged[key] = float(value)
        except ValueError:
            continue  # a typo in the ConfigMap must not break /metrics
    return merged


def price_for(prices: dict[str, float], labels: dict[str, str]) -> float:
    return prices.get(gpu_class(labels), prices.get("default", 0.0))
