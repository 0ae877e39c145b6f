"""Pure: the "Queues now" picture of one ClusterQueue, drawn by static/js/live.js.

Horizontal bars per flavor of the GPUs the table below it shows, from the same row
(``compute.queue_rows``): nominal, in use, borrowed, lent and waiting. Waiting work has
no flavor until Kueue admits it, so it is a row of its own per GPU resource. Each bar
carries its number and a pattern of its own, so the picture reads without colour.
"""

from __future__ import annotations

from apps.queues.cohort_tree import is_gpu
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


def queue_bars(queue: dict) -> dict:
    """The figure of one queue row: a category per GPU flavor (and one for waiting work)."""
    gpu_rows = [f for f in queue["flavors"] if is_gpu(f["resource"])]
    labels = [_label(f["flavor"], f["resource"]) for f in gpu_rows]
    data = []
    if gpu_rows:  # no empty trace: every legend entry has bars
        data = [
            _bars(name, pattern, labels, [float(quantity_value(f[key])) for f in gpu_rows])
            for key, name, pattern in MEASURES
        ]
    waiting = _gpu_waiting(queue)
    resources = sorted({f["resource"] for f in gpu_rows} | set(waiting))
    if resources:
        data.append(
            _bars(
                *WAITING,
                [_label("waiting", r) for r in resources],
                [float(quantity_value(waiting.get(r, "0"))) for r in resources],
            )
        )
    rows = len(labels) + len(resources)
    layout = {
        "barmode": "group",
        "xaxis": axis("GPUs (count)", rangemode="tozero"),
        "yaxis": axis("flavor · resource", type="category", autorange="reversed", automargin=True),
        "margin": {"t": 40},
        "height": 160 + 110 * rows,
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
    }
    return empty_unless_drawn({"data": data, "layout": layout}, "No GPU quota in this queue.")


def _gpu_waiting(queue: dict) -> dict[str, str]:
    return {r: amount for r, amount in queue["pending_requests"].items() if is_gpu(r)}


def _label(flavor: str, resource: str) -> str:
    return f"{flavor} · {resource}"


def _bars(name: str, pattern: str, labels: list[str], values: list[float]) -> dict:
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
        "hovertemplate": "%{y}: %{x} GPUs<extra>" + name + "</extra>",
    }
