"""Pure: Plotly specs (data + layout) for the report pages, drawn by static/js/charts.js."""

from __future__ import annotations

from apps.reports import period
from core.charts import MARGIN, axis, empty_unless_drawn, with_values


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
              "yaxis": axis("used, stacked by flavor (GPU-hours)"), "margin": MARGIN}  # fmt: skip
    return empty_unless_drawn({"data": data, "layout": layout}, "No team used GPUs this week.")


def preemption_losses(report: dict) -> dict:
    rows = report["preemption"]["teams"]
    spec = {
        "data": [{"type": "bar", "name": "lost GPU-hours", "x": [r["team"] for r in rows],
                  "y": [r["lost_gpu_hours"] for r in rows]}],
        "layout": {"xaxis": axis("team"),
                   "yaxis": axis("lost since the last checkpoint (GPU-hours)"), "margin": MARGIN},
    }  # fmt: skip
    return empty_unless_drawn(spec, "No job was preempted this week.")


def who_preempted_whom(report: dict) -> dict:
    """Preemptor team (rows) × victim team (columns): evictions, each cell labelled with its
    count and lost GPU-hours, so the picture reads without its colours."""
    pairs = report["preemption"]["pairs"]
    preemptors = sorted({p["preemptor_team"] or "unknown" for p in pairs})
    victims = sorted({p["victim_team"] for p in pairs})
    cells = {(p["preemptor_team"] or "unknown", p["victim_team"]): p for p in pairs}

    def cell(row: str, column: str, key: str):
        found = cells.get((row, column))
        return found[key] if found else None

    counts = [[cell(r, c, "count") for c in victims] for r in preemptors]
    labels = [
        [
            "" if cell(r, c, "count") is None
            else f"{cell(r, c, 'count')} × · {cell(r, c, 'lost_gpu_hours'):.1f} GPU-h"
            for c in victims
        ]
        for r in preemptors
    ]  # fmt: skip
    spec = {
        "data": [{"type": "heatmap", "name": "evictions", "x": victims, "y": preemptors,
                  "z": counts, "text": labels, "texttemplate": "%{text}",
                  "colorscale": "Blues", "colorbar": {"title": {"text": "evictions"}},
                  "hovertemplate": "%{y} preempted %{x}: %{text}<extra></extra>"}],
        "layout": {"xaxis": axis("victim team (was preempted)"),
                   "yaxis": axis("preemptor team (was admitted)"), "margin": MARGIN},
    }  # fmt: skip
    return empty_unless_drawn(spec, "No job was preempted this week.")


def cost_breakdown(report: dict) -> dict:
    rows = report["cost"]["teams"]
    teams = [r["team"] for r in rows]
    # A part with no value for any team (no price known) is left out of the legend.
    spec = {
        "data": with_values([
            {"type": "bar", "name": "GPU", "x": teams, "y": [r["gpu_cost"] for r in rows]},
            {"type": "bar", "name": "other (OpenCost)", "x": teams, "y": [r["other_cost"] or 0 for r in rows]},
            {"type": "bar", "name": "idle reserved quota", "x": teams, "y": [r["idle_reserved_cost"] for r in rows]},
        ]),
        "layout": {"barmode": "group", "xaxis": axis("team"), "yaxis": axis("cost this week (USD)"),
                   "margin": MARGIN},
    }  # fmt: skip
    return empty_unless_drawn(spec, "No costs this week.")


def trend(weeks: list[tuple[str, dict]], so_far: dict[str, str] | None = None) -> dict:
    """GPU-hours and p95 waits per week in the viewer's scope (``scope_of``); a line with
    no value in any week is left out, so every legend entry is drawn. A week in progress
    (``so_far``: week → "so far (60 h of 168)") says so on its axis label."""
    so_far = so_far or {}
    x = [f"{w} {so_far[w]}" if so_far.get(w) else w for w, _ in weeks]

    def line(name: str, values: list, axis_id: str = "y") -> dict:
        return {"type": "scatter", "mode": "lines+markers", "name": name, "x": x,
                "y": values, "yaxis": axis_id}  # fmt: skip

    def column(key: str) -> list:
        return [t.get(key) for _, t in weeks]

    lines = [
        line("GPU-hours received", column("visible_gpu_hours")),
        line("GPU-hours busy (DCGM)", column("used_gpu_hours")),
        line("GPU-hours lost to preemption", column("lost_gpu_hours")),
    ]
    for heading, waits in trend_wait_columns(weeks):
        lines.append(line(f"p95 wait, {heading} (seconds)", waits, "y2"))
    spec = {
        "data": with_values(lines),
        # The legend sits above the plot: below it, it covered the week axis' title.
        "layout": {"xaxis": axis("week"), "yaxis": axis("received, busy and lost (GPU-hours)", rangemode="tozero"), "margin": {"t": 70},
                   "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
                   "yaxis2": axis("p95 wait (seconds)", overlaying="y", side="right", rangemode="tozero")},
    }  # fmt: skip
    return empty_unless_drawn(spec, "No weekly report has been built yet.")


def trend_wait_columns(weeks: list[tuple[str, dict]]) -> list[tuple[str, list]]:
    """The p95 waits a trend shows: (whose, one value per week), the whole cluster's for
    admins, each visible team's for members."""
    if scope_of(weeks) == "cluster":
        return [("whole cluster", [t.get("wait_p95") for _, t in weeks])]
    teams = sorted({team for _, t in weeks for team in t.get("wait_p95_by_team", {})})
    return [(team, [t.get("wait_p95_by_team", {}).get(team) for _, t in weeks]) for team in teams]


def scope_of(weeks: list[tuple[str, dict]]) -> str:
    """``cluster`` or ``teams``: whose figures a trend shows (``visibility.scoped_totals``)."""
    return next((t.get("scope", "cluster") for _, t in weeks), "cluster")


LEVEL_TITLES = {
    "gpus_in_use": "GPUs in use (admitted)",
    "pending_workloads": "workloads pending",
    "pending_gpus": "GPUs pending",
}


def level_lines(series: dict, level: str) -> dict:
    """One team per line: ``level`` at the start of the range and at each step's end,
    drawn as steps (the level holds until the next change)."""
    data = [
        {"type": "scatter", "mode": "lines", "name": row["team"] or "(no team)",
         "line": {"shape": "hv"}, "x": series["times"], "y": row[level]}
        for row in series["teams"]
    ]  # fmt: skip
    layout = {"xaxis": axis("time (UTC)", type="date"), "yaxis": axis(LEVEL_TITLES[level]),
              "margin": MARGIN, "legend": {"orientation": "h"}}  # fmt: skip
    return empty_unless_drawn({"data": data, "layout": layout}, "No team in your scope.")
