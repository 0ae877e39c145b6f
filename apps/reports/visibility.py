"""Pure: narrow a stored report to the teams a viewer may see.

Rows that name a team are kept only for visible teams; cluster-wide rows (all
workloads, a priority tier, a size class, fragmentation, prices) stay, since they
identify no team. A preemption pair is shown when either side is visible.
"""

from __future__ import annotations

import copy


def scoped(report: dict, teams: set[str] | None) -> dict:
    """``teams`` None means everything (platform admins)."""
    if teams is None:
        return report
    data = copy.copy(report)

    def keep(rows: list[dict]) -> list[dict]:
        return [r for r in rows if not r.get("team") or r["team"] in teams]

    queue_team = {r["queue"]: r.get("team", "") for r in report.get("starvation", [])}
    data["waits"] = [
        r for r in report["waits"] if r["dimension"] not in ("team", "queue") or r["team"] in teams
    ]
    data["requeue_waits"] = [
        r for r in report["requeue_waits"] if queue_team.get(r["queue"]) in teams
    ]
    data["wait_cdf"] = {q: v for q, v in report["wait_cdf"].items() if queue_team.get(q) in teams}
    data["starvation"] = keep(report["starvation"])
    data["fairness"] = {k: keep(v) for k, v in report["fairness"].items()}
    pre = report["preemption"]
    data["preemption"] = {
        "events": [e for e in pre["events"] if e["team"] in teams or e["preemptor_team"] in teams],
        "teams": keep(pre["teams"]),
        "pairs": [
            p for p in pre["pairs"] if p["victim_team"] in teams or p["preemptor_team"] in teams
        ],
    }
    data["utilisation"] = keep(report["utilisation"])
    data["cost"] = {"teams": keep(report["cost"]["teams"]), "prices": report["cost"]["prices"]}
    return data


def scoped_totals(totals: dict, teams: set[str] | None) -> dict:
    """Trend numbers; for members only their teams' GPU-hours plus cluster-wide waits."""
    by_team = {
        t: v for t, v in (totals.get("by_team") or {}).items() if teams is None or t in teams
    }
    visible = {"visible_gpu_hours": sum(by_team.values()), "by_team": by_team}
    if teams is None:
        return {**totals, **visible}
    return {**visible, "wait_p50": totals.get("wait_p50"), "wait_p95": totals.get("wait_p95")}
