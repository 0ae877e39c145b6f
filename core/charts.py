"""Pure: the pieces every Plotly spec of the portal shares (drawn by static/js/charts.js).

Axis titles are objects (``{"text": …}``): plotly.js 3 dropped the plain-string form,
and the string is silently ignored. A chart with nothing to draw says so in its middle.
"""

from __future__ import annotations

MARGIN = {"t": 30}


def axis(title: str, **extra) -> dict:
    return {"title": {"text": title}, **extra}


def with_values(traces: list[dict], key: str = "y") -> list[dict]:
    """The traces with at least one value: a legend entry with nothing drawn says nothing."""
    return [trace for trace in traces if any(v is not None for v in trace[key])]


def empty_unless_drawn(spec: dict, message: str) -> dict:
    """``spec`` as is when a trace has a point (a treemap: a box of some size); otherwise
    a blank chart saying ``message``."""
    if any(len(trace.get("y") or ()) or any(trace.get("values") or ()) for trace in spec["data"]):
        return spec
    layout = {
        **spec["layout"],
        "xaxis": {**spec["layout"].get("xaxis", {}), "visible": False},
        "yaxis": {**spec["layout"].get("yaxis", {}), "visible": False},
        "annotations": [
            {"text": message, "showarrow": False, "xref": "paper", "yref": "paper",
             "x": 0.5, "y": 0.5, "font": {"size": 14}}
        ],
    }  # fmt: skip
    return {"data": [], "layout": layout}
