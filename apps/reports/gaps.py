"""Pure: what a report says about data it could not get ("gaps").

A stored gap keeps the technical ``reason`` (Prometheus URL, query, HTTP error) for
platform admins who must fix it. Everyone else reads a ``message`` naming only the
missing source, since the reason exposes internal addresses and queries.
"""

from __future__ import annotations

from typing import NamedTuple


class Kind(NamedTuple):
    panel: str
    what: str
    source: str


KINDS: dict[str, Kind] = {
    "gpu_metrics": Kind("utilisation", "GPU metrics", "Prometheus"),
    "wait_histogram": Kind("waits", "Kueue's wait-time metrics", "Prometheus"),
    "gpu_prices": Kind("cost", "GPU prices", "OpenCost or the price table"),
    "other_costs": Kind("cost", "Non-GPU costs", "OpenCost"),
    "costs": Kind("cost", "Cost data", "OpenCost or the price table"),
    "placement": Kind("fragmentation", "Pod placement metrics", "kube-state-metrics"),
}
# Snapshots stored before gaps had a kind name only their panel.
KIND_OF_PANEL = {"utilisation": "gpu_metrics", "waits": "wait_histogram", "cost": "costs"}


def gap(kind: str, reason: str, *, missing: list[str] | None = None) -> dict:
    """A gap to store with the report; ``missing`` names what lacks data (flavors)."""
    row = {"panel": KINDS[kind].panel, "kind": kind, "reason": reason}
    if missing:
        row["missing"] = list(missing)
    return row


def message(row: dict) -> str:
    """e.g. "GPU metrics (Prometheus) were unavailable for this week"."""
    kind = KINDS[row.get("kind") or KIND_OF_PANEL.get(row["panel"], "costs")]
    text = f"{kind.what} ({kind.source}) were unavailable for this week"
    return f"{text}: {', '.join(row['missing'])}" if row.get("missing") else text


def for_viewer(rows: list[dict], *, with_reasons: bool) -> list[dict]:
    """Gaps as shown: a message for everyone, the technical reason only if asked."""
    hidden = () if with_reasons else ("reason",)
    return [
        {**{k: v for k, v in row.items() if k not in hidden}, "message": message(row)}
        for row in rows
    ]
