"""Pure: a suggestion's what-if figures as its card shows them, before anyone applies it.

Per team: the verdict (gains / loses / within noise …), p95 wait, GPU-hours and
preemptions now and with the draft; and the cost of the replayed period, now, with
the draft and the change (``None``: a flavor without price left the sum unknown).
"""

from __future__ import annotations

FIGURES = ("p95_wait_s", "gpu_hours", "preemptions")


def whatif_figures(result: dict) -> dict:
    """Who gains, who loses and what it costs, from a finished what-if's ``result``."""
    teams = [
        {
            "team": t["team"],
            "verdict": t["verdict"],
            "verdict_text": t.get("verdict_text") or t["verdict"],
            **{f"{name}_now": t["current"].get(name) for name in FIGURES},
            **{f"{name}_draft": t["proposed"].get(name) for name in FIGURES},
        }
        for t in result.get("teams") or []
    ]
    total = (result.get("money") or {}).get("total") or {}
    cost = {side: (total.get(side) or {}).get("cost_usd") for side in ("current", "proposed")}
    cost["change"] = (total.get("change") or {}).get("cost_usd")
    return {"teams": teams, "cost": cost}
