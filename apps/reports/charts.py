"""Pure: Plotly specs (data + layout) for the report pages, drawn by static/js/charts.js.

Axis titles are objects (``{"text": …}``): plotly.js 3 dropped the plain-string form,
and the string is silently ignored. A chart with nothing to draw says so in its middle.
"""

from __future__ import annotations

from apps.reports import period

MARGIN = {"t": 30}


def axis(title: str, **extra) -> dict:
    return {"title": {"text": title}, **extra}


def empty_unless_drawn(spec: dict, message: str) -> dict:
    """``spec`` as is when a trace has a point; otherwise a blank chart saying ``message``."""
    if any(len(trace.get("y") or ()) for trace in spec["data"]):
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


def wait_cdf(report: dict) -> dict:
    data = [
        {"type": "scatter", "mode": "lines", "name": queue, "line": {"shape": "hv"},
         "x": [p[0] / 60 for p in points], "y": [p[1] for p in points]}
        for queue, points in report["wait_cdf"].items()
    ]  # fmt: skip
    layout = {"xaxis": axis("wait before admission (minutes, log scale)", type="log"),
              "yaxis": axis("share of the queue's jobs admitted (0–1)"),
              "margin": MARGIN, "legend": {"orientation": "h"}}  # fmt: skip
    return empty_unless_drawn({"data": data, "layout": layout}, "No job was admitted this week.")


def usage_vs_quota(report: dict) -> dict:
    """Used GPU-hours per flavor against nominal quota × the hours the report covers."""
    teams = report["fairness"]["teams"]
    hours = period.of(report)["covered_hours"]
    so_far = period.so_far(report)
    label = f"nominal quota × hours {so_far}" if so_far else "nominal quota × week"
    flavors = sorted({f for t in teams for f in t.get("gpu_hours_by_flavor", {})})
    data = [
        {"type": "bar", "name": flavor, "x": [t["team"] for t in teams],
         "y": [t.get("gpu_hours_by_flavor", {}).get(flavor, 0) for t in teams]}
        for flavor in flavors
    ]  # fmt: skip
    data.append(
        {"type": "scatter", "mode": "markers", "name": label,
         "marker": {"symbol": "line-ew-open", "size": 40, "line": {"width": 3}},
         "x": [t["team"] for t in teams], "y": [t["nominal_gpus"] * hours for t in teams]}
    )  # fmt: skip
    layout = {"barmode": "stack", "xaxis": axis("team"),
              "yaxis": axis("GPU-hours used, by flavor"), "margin": MARGIN}  # fmt: skip
    return empty_unless_drawn({"data": data, "layout": layout}, "No team used GPUs this week.")


def preemption_losses(report: dict) -> dict:
    rows = report["preemption"]["teams"]
    spec = {
        "data": [{"type": "bar", "name": "lost GPU-hours", "x": [r["team"] for r in rows],
                  "y": [r["lost_gpu_hours"] for r in rows]}],
        "layout": {"xaxis": axis("team"),
                   "yaxis": axis("GPU-hours lost since the last checkpoint"), "margin": MARGIN},
    }  # fmt: skip
    return empty_unless_drawn(spec, "No job was preempted this week.")


def cost_breakdown(report: dict) -> dict:
    rows = report["cost"]["teams"]
    teams = [r["team"] for r in rows]
    spec = {
        "data": [
            {"type": "bar", "name": "GPU", "x": teams, "y": [r["gpu_cost"] for r in rows]},
            {"type": "bar", "name": "other (OpenCost)", "x": teams, "y": [r["other_cost"] or 0 for r in rows]},
            {"type": "bar", "name": "idle reserved quota", "x": teams, "y": [r["idle_reserved_cost"] for r in rows]},
        ],
        "layout": {"barmode": "group", "xaxis": axis("team"), "yaxis": axis("cost this week (USD)"),
                   "margin": MARGIN},
    }  # fmt: skip
    return empty_unless_drawn(spec, "No costs this week.")


def trend(weeks: list[tuple[str, dict]]) -> dict:
    x = [w for w, _ in weeks]

    def line(key: str, name: str, axis_id: str = "y") -> dict:
        return {"type": "scatter", "mode": "lines+markers", "name": name, "x": x,
                "y": [t.get(key) for _, t in weeks], "yaxis": axis_id}  # fmt: skip

    spec = {
        "data": [line("visible_gpu_hours", "GPU-hours received"), line("used_gpu_hours", "GPU-hours busy (DCGM)"),
                 line("lost_gpu_hours", "GPU-hours lost to preemption"),
                 line("wait_p95", "p95 wait (seconds)", "y2")],
        "layout": {"xaxis": axis("week"), "yaxis": axis("GPU-hours"), "margin": MARGIN,
                   "legend": {"orientation": "h"},
                   "yaxis2": axis("p95 wait (seconds)", overlaying="y", side="right")},
    }  # fmt: skip
    return empty_unless_drawn(spec, "No weekly report has been built yet.")
