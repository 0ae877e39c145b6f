"""Pure: what a report says about data it could not get ("gaps").

A stored gap keeps the technical ``reason`` (Prometheus URL, query, HTTP error) for
platform admins who must fix it. Everyone else reads a ``message`` naming only the
missing source, since the reason exposes internal addresses and queries.
"""

from __future__ import annotations

from datetime import UTC, datetime
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
    "recorder_downtime": Kind("waits", "Workload history", "the recorder"),
}
# Snapshots stored before gaps had a kind name only their panel.
KIND_OF_PANEL = {"utilisation": "gpu_metrics", "waits": "wait_histogram", "cost": "costs"}


def gap(kind: str, reason: str, *, missing: list[str] | None = None) -> dict:
    """A gap to store with the report; ``missing`` names what lacks data (flavors)."""
    row = {"panel": KINDS[kind].panel, "kind": kind, "reason": reason}
    if missing:
        row["missing"] = list(missing)
    return row


def downtime(row: dict) -> dict:
    """A gap for one of ``compute.waits.downtime_rows``: recorder downtime in the week."""
    how = "rebuilt from Kueue's Events" if row["rebuilt"] else "Kueue's Events did not reach back"
    reason = f"history gap {_moment(row['start'])} to {_moment(row['end'])}; {how}"
    return {**gap("recorder_downtime", reason), **row}


def _moment(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")


def interval(start: float, end: float) -> str:
    """ "2026-11-16 08:00:05–08:40:10 UTC" (the date again only if it changes)."""
    first, last = _moment(start), _moment(end)
    if last[:10] == first[:10]:
        last = last[11:]
    return f"{first}–{last} UTC"


def _downtime_message(row: dict) -> str:
    when = interval(row["start"], row["end"])
    if row.get("rebuilt"):
        return f"Recorder downtime {when}: history rebuilt from Kueue's Events"
    n = row.get("unknown_waits", 0)
    return f"Waits unknown during recorder downtime {when}: {n} not counted"


def message(row: dict) -> str:
    """e.g. "GPU metrics (Prometheus) were unavailable for this week"."""
    if row.get("kind") == "recorder_downtime":
        return _downtime_message(row)
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
