"""Pure: the what-if's before/after picture per team, drawn by static/js/charts.js.

Four panels side by side (p95 wait, GPU-hours received, preemptions, cost), each with a
bar for now and a hatched bar for the draft, so the two read apart without colour. Cost
is the team's money figures summed (``replay.money``: idle reserved quota, work lost to
preemption, borrowing) at the flavors that have a price; none without one.
"""

from __future__ import annotations

from core.charts import axis, empty_unless_drawn

PANELS = (
    ("p95_wait_s", "p95 wait (hours)", 1 / 3600),
    ("gpu_hours", "received (GPU-hours)", 1.0),
    ("preemptions", "preemptions (count)", 1.0),
    ("cost_usd", "cost ($: idle + lost + borrowed)", 1.0),
)
# (result key, legend name, hatch, colour): one colour per side in every panel, so each
# panel's bars match the one legend.
SIDES = (("current", "now", "", "#1f77b4"), ("proposed", "draft", "/", "#ff7f0e"))


def before_after(result: dict) -> dict:
    teams = _with_cost(result.get("teams") or [], result.get("money") or {})
    names = [t["team"] for t in teams]
    data, layout = (
        [],
        {"barmode": "group", "margin": {"t": 60}, "legend": {"orientation": "h", "y": 1.12}},
    )
    width = 1 / len(PANELS)
    for index, (key, title, scale) in enumerate(PANELS, start=1):
        suffix = "" if index == 1 else str(index)
        for side, label, hatch, colour in SIDES:
            values = [_scaled(t[side].get(key), scale) for t in teams]
            data.append({"type": "bar", "name": label, "legendgroup": label, "showlegend": index == 1,
                         "x": names, "y": values, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}",
                         "marker": {"color": colour, "pattern": {"shape": hatch}}})  # fmt: skip
        layout[f"xaxis{suffix}"] = axis(
            "team", domain=[(index - 1) * width + 0.04, index * width - 0.04], anchor=f"y{suffix}"
        )
        layout[f"yaxis{suffix}"] = axis(title, anchor=f"x{suffix}", rangemode="tozero")  # fmt: skip
    return empty_unless_drawn(
        {"data": data if teams else [], "layout": layout}, "No team in this replay."
    )


def _with_cost(teams: list[dict], money: dict) -> list[dict]:
    """Each team's sides with its ``cost_usd`` beside the wait figures (None when unknown)."""
    costs = {row["team"]: row for row in money.get("teams") or []}
    return [
        {**t, **{side: {**t[side], "cost_usd": costs.get(t["team"], {}).get(side, {}).get("cost_usd")}
                 for side, *_ in SIDES}}
        for t in teams
    ]  # fmt: skip


def _scaled(value, scale: float):
    return None if value is None else value * scale
