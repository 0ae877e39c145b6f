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
    data["inference"] = keep(report.get("inference", []))
    data["cost"] = {"teams": keep(report["cost"]["teams"]), "prices": report["cost"]["prices"]}
    return data


def scoped_totals(totals: dict, teams: set[str] | None) -> dict:
    """Trend numbers in the viewer's scope: the whole cluster for platform admins; for
    members, their teams' GPU-hours (summed) and each team's own waits, never the
    cluster's. Reports stored before per-team totals existed give members no waits."""
    by_team = {
        t: v for t, v in (totals.get("by_team") or {}).items() if teams is None or t in teams
    }
    visible = {"visible_gpu_hours": sum(by_team.values()), "by_team": by_team}
    if teams is None:
        return {**totals, **visible, "scope": "cluster"}
    per_team = {t: v for t, v in (totals.get("teams") or {}).items() if t in teams}
    known = "teams" in totals

    def summed(key: str) -> float | None:
        values = [v[key] for v in per_team.values() if v[key] is not None]
        return sum(values) if known and values else None

    return {
        **visible,
        "scope": "teams",
        "scope_teams": sorted(teams),
        "used_gpu_hours": summed("used_gpu_hours"),
        "lost_gpu_hours": summed("lost_gpu_hours"),
        "wait_p95_by_team": {t: v["wait_p95"] for t, v in sorted(per_team.items())},
    }
