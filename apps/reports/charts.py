"""Pure: Plotly specs (data + layout) for the report pages, drawn by static/js/charts.js."""

from __future__ import annotations


def wait_cdf(report: dict) -> dict:
    data = [
        {"type": "scatter", "mode": "lines", "name": queue, "line": {"shape": "hv"},
         "x": [p[0] / 60 for p in points], "y": [p[1] for p in points]}
        for queue, points in report["wait_cdf"].items()
    ]  # fmt: skip
    layout = {"xaxis": {"title": "wait (minutes)", "type": "log"}, "yaxis": {"title": "share admitted"},
              "margin": {"t": 30}, "legend": {"orientation": "h"}}  # fmt: skip
    return {"data": data, "layout": layout}


def usage_vs_quota(report: dict, week_hours: float = 168.0) -> dict:
    teams = report["fairness"]["teams"]
    flavors = sorted({f for t in teams for f in t.get("gpu_hours_by_flavor", {})})
    data = [
        {"type": "bar", "name": flavor, "x": [t["team"] for t in teams],
         "y": [t.get("gpu_hours_by_flavor", {}).get(flavor, 0) for t in teams]}
        for flavor in flavors
    ]  # fmt: skip
    data.append(
        {"type": "scatter", "mode": "markers", "name": "nominal quota × week",
         "marker": {"symbol": "line-ew-open", "size": 40, "line": {"width": 3}},
         "x": [t["team"] for t in teams], "y": [t["nominal_gpus"] * week_hours for t in teams]}
    )  # fmt: skip
    return {
        "data": data,
        "layout": {"barmode": "stack", "yaxis": {"title": "GPU-hours"}, "margin": {"t": 30}},
    }


def preemption_losses(report: dict) -> dict:
    rows = report["preemption"]["teams"]
    return {
        "data": [{"type": "bar", "name": "lost GPU-hours", "x": [r["team"] for r in rows],
                  "y": [r["lost_gpu_hours"] for r in rows]}],
        "layout": {"yaxis": {"title": "GPU-hours lost"}, "margin": {"t": 30}},
    }  # fmt: skip


def cost_breakdown(report: dict) -> dict:
    rows = report["cost"]["teams"]
    teams = [r["team"] for r in rows]
    return {
        "data": [
            {"type": "bar", "name": "GPU", "x": teams, "y": [r["gpu_cost"] for r in rows]},
            {"type": "bar", "name": "other (OpenCost)", "x": teams, "y": [r["other_cost"] or 0 for r in rows]},
            {"type": "bar", "name": "idle reserved quota", "x": teams, "y": [r["idle_reserved_cost"] for r in rows]},
        ],
        "layout": {"barmode": "group", "yaxis": {"title": "USD"}, "margin": {"t": 30}},
    }  # fmt: skip


def trend(weeks: list[tuple[str, dict]]) -> dict:
    x = [w for w, _ in weeks]

    def line(key: str, name: str, axis: str = "y") -> dict:
        return {"type": "scatter", "mode": "lines+markers", "name": name, "x": x,
                "y": [t.get(key) for _, t in weeks], "yaxis": axis}  # fmt: skip

    return {
        "data": [line("visible_gpu_hours", "GPU-hours"), line("used_gpu_hours", "used GPU-hours"),
                 line("lost_gpu_hours", "lost to preemption"), line("wait_p95", "p95 wait (s)", "y2")],
        "layout": {"yaxis": {"title": "GPU-hours"}, "margin": {"t": 30}, "legend": {"orientation": "h"},
                   "yaxis2": {"title": "seconds", "overlaying": "y", "side": "right"}},
    }  # fmt: skip
