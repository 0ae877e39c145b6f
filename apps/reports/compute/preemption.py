"""Preemption losses: what evicted workloads lost, who preempted whom, what it cost.

Work lost by one preemption = gpus × the stretch ``informer.workload.lost_since``
gives (since the run's last checkpoint, else since its admission, which the row
flags as ``assumed_from_admission``). A preemption counts in the week its
eviction falls in (the whole lost stretch, even if the run began earlier).
"""

from __future__ import annotations

from collections import defaultdict

from apps.reports.compute.records import HOUR, Run, WeekInput
from informer.workload import lost_since


def lost_gpu_hours(run: Run) -> tuple[float, bool]:
    """(GPU-hours lost, whether a checkpoint was known), by the one lost-work rule."""
    since, known = lost_since(run.start, run.end, run.checkpoint)
    return run.gpus * (run.end - since) / HOUR, known


def preemptions(week: WeekInput) -> list[Run]:
    lo, hi = week.start, week.horizon  # read once: ``horizon`` is a property, runs many
    return [r for r in week.runs if r.preempted and r.end is not None and lo <= r.end < hi]


def loss_rows(week: WeekInput) -> list[dict]:
    """One row per preemption."""
    rows = []
    for run in preemptions(week):
        lost, known = lost_gpu_hours(run)
        price = week.prices.get(run.flavor)
        by_team, by_queue = week.owners.get(run.preemptor_uid, ("", ""))
        rows.append(
            {
                "uid": run.uid,
                "team": run.team,
                "queue": run.queue,
                "flavor": run.flavor,
                "reason": run.preempt_reason,
                "at": run.end,
                "lost_gpu_hours": lost,
                "assumed_from_admission": not known,
                "lost_cost": None if price is None else lost * price.usd_per_gpu_hour,
                "preemptor_uid": run.preemptor_uid,
                "preemptor_team": by_team,
                "preemptor_queue": by_queue,
            }
        )
    return rows


def team_totals(rows: list[dict]) -> list[dict]:
    totals: dict[str, dict] = {}
    for row in rows:
        t = totals.setdefault(row["team"], _zero(row["team"]))
        t["count"] += 1
        t["lost_gpu_hours"] += row["lost_gpu_hours"]
        t["lost_cost"] += row["lost_cost"] or 0.0
        t["assumed_from_admission"] += int(row["assumed_from_admission"])
    return [totals[k] for k in sorted(totals)]


def _zero(team: str) -> dict:
    return {
        "team": team,
        "count": 0,
        "lost_gpu_hours": 0.0,
        "lost_cost": 0.0,
        "assumed_from_admission": 0,
    }


def who_preempted_whom(rows: list[dict]) -> list[dict]:
    pairs: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0])
    for row in rows:
        pair = pairs[(row["preemptor_team"], row["team"])]
        pair[0] += 1
        pair[1] += row["lost_gpu_hours"]
    return [
        {"preemptor_team": a, "victim_team": b, "count": n, "lost_gpu_hours": h}
        for (a, b), (n, h) in sorted(pairs.items())
    ]
