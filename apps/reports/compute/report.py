"""Assemble one week's report from its ``WeekInput``: a JSON-safe dict of sections."""

from __future__ import annotations

from apps.reports.compute import (
    classes,
    cost,
    fairness,
    fragmentation,
    preemption,
    utilisation,
    waits,
)
from apps.reports.compute.records import WeekInput, run_gpu_hours

MAX_EVENTS = 500


def build(week: WeekInput, gaps: list[dict] | None = None) -> dict:
    queues = fairness.queue_rows(week)
    run_hours = run_gpu_hours(week)  # three sections sum them: computed once
    usage = utilisation.team_rows(week, run_hours)
    losses = preemption.loss_rows(week)
    return {
        "period": week.period(),
        **waits.sections(week),
        "fairness": {"teams": fairness.team_rows(week, queues, run_hours), "queues": queues},
        "preemption": {
            # The biggest losses only: a busy week has thousands; totals use them all.
            "events": sorted(losses, key=lambda e: -e["lost_gpu_hours"])[:MAX_EVENTS],
            "count": len(losses),
            "teams": preemption.team_totals(losses),
            "pairs": preemption.who_preempted_whom(losses),
        },
        "utilisation": usage,
        "classes": classes.class_gpu_hours(week.runs, run_hours, week.inference_tiers),
        "inference": classes.inference_rows(week, week.inference),
        "cost": {"teams": cost.team_rows(week, usage, run_hours), "prices": cost.price_rows(week)},
        "fragmentation": fragmentation.summary(week),
        "gaps": list(gaps or []),
    }


def totals(report: dict) -> dict:
    """The few numbers the 52-week trend plots."""
    overall = next((r for r in report["waits"] if r["dimension"] == "all"), {})
    return {
        "gpu_hours": sum(t["received_gpu_hours"] for t in report["fairness"]["teams"]),
        "used_gpu_hours": measured_sum(report["utilisation"]),
        "gpu_cost": sum(c["gpu_cost"] for c in report["cost"]["teams"]),
        "preemptions": report["preemption"]["count"],
        "lost_gpu_hours": sum(t["lost_gpu_hours"] for t in report["preemption"]["teams"]),
        "wait_p50": overall.get("p50"),
        "wait_p95": overall.get("p95"),
        "fragmented_gpu_hours": report["fragmentation"]["fragmented_gpu_hours"],
        "by_team": {t["team"]: t["received_gpu_hours"] for t in report["fairness"]["teams"]},
        "teams": team_totals(report),
    }


def measured_sum(utilisation: list[dict]) -> float | None:
    """Busy GPU-hours of these rows, or None when DCGM measured none of them (unknown, not 0)."""
    if not any(u["measured_gpu_hours"] for u in utilisation):
        return None
    return sum(u["used_gpu_hours"] for u in utilisation)


def team_totals(report: dict) -> dict[str, dict]:
    """The trend's numbers per team, so a member's trend shows their teams' figures only."""
    rows: dict[str, dict] = {}

    def row(team: str) -> dict:
        return rows.setdefault(
            team,
            {"used_gpu_hours": None, "lost_gpu_hours": 0.0, "wait_p50": None, "wait_p95": None},
        )

    for u in report["utilisation"]:  # one row per team
        row(u["team"])["used_gpu_hours"] = measured_sum([u])
    for t in report["preemption"]["teams"]:
        row(t["team"])["lost_gpu_hours"] += t["lost_gpu_hours"]
    for w in report["waits"]:
        if w["dimension"] == "team":
            row(w["key"]).update(wait_p50=w.get("p50"), wait_p95=w.get("p95"))
    return rows
