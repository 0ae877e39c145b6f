"""Assemble one week's report from its ``WeekInput``: a JSON-safe dict of sections."""

from __future__ import annotations

from apps.reports.compute import cost, fairness, fragmentation, preemption, utilisation, waits
from apps.reports.compute.records import WeekInput

MAX_EVENTS = 500


def build(week: WeekInput, gaps: list[dict] | None = None) -> dict:
    queues = fairness.queue_rows(week)
    usage = utilisation.team_rows(week)
    losses = preemption.loss_rows(week)
    return {
        "period": week.period(),
        **waits.sections(week),
        "fairness": {"teams": fairness.team_rows(week, queues), "queues": queues},
        "preemption": {
            # The biggest losses only: a busy week has thousands; totals use them all.
            "events": sorted(losses, key=lambda e: -e["lost_gpu_hours"])[:MAX_EVENTS],
            "count": len(losses),
            "teams": preemption.team_totals(losses),
            "pairs": preemption.who_preempted_whom(losses),
        },
        "utilisation": usage,
        "cost": {"teams": cost.team_rows(week, usage), "prices": cost.price_rows(week)},
        "fragmentation": fragmentation.summary(week),
        "gaps": list(gaps or []),
    }


def totals(report: dict) -> dict:
    """The few numbers the 52-week trend plots."""
    overall = next((r for r in report["waits"] if r["dimension"] == "all"), {})
    return {
        "gpu_hours": sum(t["received_gpu_hours"] for t in report["fairness"]["teams"]),
        "used_gpu_hours": sum(u["used_gpu_hours"] for u in report["utilisation"]),
        "gpu_cost": sum(c["gpu_cost"] for c in report["cost"]["teams"]),
        "preemptions": report["preemption"]["count"],
        "lost_gpu_hours": sum(t["lost_gpu_hours"] for t in report["preemption"]["teams"]),
        "wait_p50": overall.get("p50"),
        "wait_p95": overall.get("p95"),
        "fragmented_gpu_hours": report["fragmentation"]["fragmented_gpu_hours"],
        "by_team": {t["team"]: t["received_gpu_hours"] for t in report["fairness"]["teams"]},
    }
