"""Pure: the "Queues now" picture of one ClusterQueue (and of each topology level's
domains), drawn by static/js/live.js.

Horizontal bars per flavor of the GPUs the table below it shows, from the same row
(``compute.queue_rows``): nominal, in use, borrowed, lent and waiting; and one smaller
figure per other resource (CPU in cores, memory in GiB) in its own unit, never on the
GPUs' axis. Waiting work has no flavor until Kueue admits it, so it is a row of its own
per resource. Each bar carries its number and a pattern of its own, so the picture
reads without colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from apps.queues.cohort_tree import is_gpu
from apps.queues.quantity import BYTE_RESOURCES
from core.charts import axis, empty_unless_drawn
from kueuemodel import quantity_value

# (key in the flavor row, legend name, bar pattern)
MEASURES = (
    ("nominal", "nominal quota", ""),
    ("in_use", "in use", "/"),
    ("borrowed", "borrowed from the cohort", "x"),
    ("lent", "lent to the cohort", "."),
)
WAITING = ("waiting (no flavor yet)", "-")


@dataclass(frozen=True)
class Unit:
    """How a resource's quantities are drawn: axis title, per-bar suffix, divisor."""

    axis: str
    suffix: str
    divisor: int = 1


GPU_UNIT = Unit("GPUs (count)", "GPUs")
UNITS = {
    "cpu": Unit("CPU (cores)", "cores"),
    "memory": Unit("memory (GiB, 1 GiB = 2³⁰ bytes)", "GiB", 2**30),
}


def unit_of(resource: str) -> Unit:
    """Bytes (memory, ephemeral storage) in GiB, CPU in cores, anything else as a count."""
    if resource in UNITS:
        return UNITS[resource]
    if resource in BYTE_RESOURCES:
        return Unit(f"{resource} (GiB)", "GiB", 2**30)
    return Unit(f"{resource} (count)", "")


def queue_bars(queue: dict) -> dict:
    """The figure of one queue row: a category per GPU flavor (and one for waiting work)."""
    gpu_rows = [f for f in queue["flavors"] if is_gpu(f["resource"])]
    waiting = {r: a for r, a in queue["pending_requests"].items() if is_gpu(r)}
    figure = _figure(gpu_rows, waiting, GPU_UNIT)
    return empty_unless_drawn(figure, "No GPU quota in this queue.")


def other_resource_bars(queue: dict) -> list[dict]:
    """One figure per resource other than GPUs the queue has quota rows for (CPU, memory,
    …), each in that resource's unit: ``[{"resource", "chart"}]``, CPU and memory first."""
    resources = {f["resource"] for f in queue["flavors"] if not is_gpu(f["resource"])}
    figures = []
    for resource in sorted(resources, key=lambda r: (r not in UNITS, r)):
        rows = [f for f in queue["flavors"] if f["resource"] == resource]
        waiting = {r: a for r, a in queue["pending_requests"].items() if r == resource}
        figures.append({"resource": resource, "chart": _figure(rows, waiting, unit_of(resource))})
    return figures


def _figure(rows: list[dict], waiting: dict[str, str], unit: Unit) -> dict:
    labels = [_label(f["flavor"], f["resource"]) for f in rows]
    data = []
    if rows:  # no empty trace: every legend entry has bars
        data = [
            _bars(name, pattern, labels, [_scaled(f[key], unit) for f in rows], unit)
            for key, name, pattern in MEASURES
        ]
    resources = sorted({f["resource"] for f in rows} | set(waiting))
    if resources:
        data.append(
            _bars(
                *WAITING,
                [_label("waiting", r) for r in resources],
                [_scaled(waiting.get(r, "0"), unit) for r in resources],
                unit,
            )
        )
    layout = {
        "barmode": "group",
        "xaxis": axis(unit.axis, rangemode="tozero"),
        "yaxis": axis("flavor · resource", type="category", autorange="reversed", automargin=True),
        "margin": {"t": 40},
        "height": 160 + 110 * (len(labels) + len(resources)),
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
    }
    return {"data": data, "layout": layout}


def _scaled(quantity: str, unit: Unit) -> float:
    return round(float(quantity_value(quantity)) / unit.divisor, 2)


def _label(flavor: str, resource: str) -> str:
    return f"{flavor} · {resource}"


def _bars(name: str, pattern: str, labels: list[str], values: list[float], unit: Unit) -> dict:
    return {
        "type": "bar",
        "orientation": "h",
        "name": name,
        "y": labels,
        "x": values,
        "text": [f"{name}: {v:g}" for v in values],
        "textposition": "outside",
        "cliponaxis": False,
        "marker": {"pattern": {"shape": pattern}, "line": {"width": 1}},
        "hovertemplate": f"%{{y}}: %{{x}} {unit.suffix}<extra>{name}</extra>",
    }


# (key in the domain row, legend name, bar pattern): stacked, in use then free.
DOMAIN_MEASURES = (("in_use", "in use", "/"), ("free", "free", ""))


def domain_bars(level: dict) -> dict:
    """One topology level's figure: per domain, its GPUs in use and free, stacked, so a
    bar's length is what the domain can hold (``domains.flavor_rows``' numbers)."""
    labels = [d["domain"] for d in level["domains"]]
    data = []
    if labels:
        data = [
            _bars(name, pattern, labels, [float(d[key]) for d in level["domains"]], GPU_UNIT)
            for key, name, pattern in DOMAIN_MEASURES
        ]
        for trace in data:
            trace["textposition"] = "inside"
    layout = {
        "barmode": "stack",
        "xaxis": axis(GPU_UNIT.axis, rangemode="tozero"),
        "yaxis": axis(level["level"], type="category", autorange="reversed", automargin=True),
        "margin": {"t": 40},
        "height": 140 + 40 * len(labels),
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
    }
    return empty_unless_drawn({"data": data, "layout": layout}, "No node in any domain.")
