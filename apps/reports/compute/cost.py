"""Chargeback: GPU cost per team, idle reserved quota, cost per useful GPU-hour.

* GPU cost = Σ GPU-hours on a flavor × that flavor's $/GPU-hour (OpenCost or the
  portal's price table). Flavors without any price are listed as unpriced.
* Total = GPU cost + the team's non-GPU cost from OpenCost when known.
* Idle reserved-pool cost = Σ flavors max(0, nominal × hours − GPU-hours used on
  that flavor) × price, hours being those the report covers (the week so far while
  it is in progress): what the team's guaranteed quota cost while unused, also
  when nothing ran on a flavor. None (not 0) when a reserved flavor has no price;
  ``idle_by_flavor`` shows the flavors that do.
* Cost per useful GPU-hour = GPU cost ÷ used (utilisation-weighted) GPU-hours.
"""

from __future__ import annotations

from collections import defaultdict

from apps.reports.compute.records import WeekInput, run_gpu_hours


def team_rows(
    week: WeekInput, utilisation: list[dict], run_hours: list[float] | None = None
) -> list[dict]:
    """One row per team; ``run_hours``: ``run_gpu_hours(week)`` when the caller has it."""
    used = {row["team"]: row["used_gpu_hours"] for row in utilisation}
    run_hours = run_gpu_hours(week) if run_hours is None else run_hours
    hours: dict[tuple[str, str], float] = defaultdict(float)
    for run, spent in zip(week.runs, run_hours, strict=True):
        hours[(run.team, run.flavor)] += spent
    nominal: dict[tuple[str, str], float] = defaultdict(float)
    for q in week.quotas:
        if q.team:
            nominal[(q.team, q.flavor)] += q.nominal
    teams = sorted({t for t, _ in hours} | {t for t, _ in nominal})
    return [_team_row(team, hours, nominal, used.get(team, 0.0), week) for team in teams]


def _team_row(team, hours, nominal, used: float, week: WeekInput) -> dict:
    gpu_cost, unpriced = 0.0, set()
    flavors = {f for t, f in hours if t == team} | {f for t, f in nominal if t == team}
    idle = [_idle_row(team, f, hours, nominal, week) for f in sorted(flavors)]
    for flavor in flavors:
        price = week.prices.get(flavor)
        spent = hours.get((team, flavor), 0.0)
        if price is None:
            if spent or nominal.get((team, flavor)):
                unpriced.add(flavor)
            continue
        gpu_cost += spent * price.usd_per_gpu_hour
    reserved = [row for row in idle if row["reserved_gpu_hours"]]
    other = week.other_costs.get(team)
    return {
        "team": team,
        "gpu_cost": gpu_cost,
        "other_cost": other,
        "total_cost": gpu_cost + (other or 0.0),
        # A sum with a flavor's price missing is not the idle cost: no number then.
        "idle_reserved_cost": None
        if any(row["idle_cost"] is None for row in reserved)
        else sum(row["idle_cost"] for row in reserved),
        "idle_by_flavor": reserved,
        "cost_per_useful_gpu_hour": gpu_cost / used if used else None,
        "unpriced_flavors": sorted(unpriced),
    }


def idle_gpu_hours(nominal_gpus: float, hours: float, used_gpu_hours: float) -> float:
    """Reserved GPU-hours (nominal × hours) less the GPU-hours run on the flavor, over the
    whole period; never below zero (a team that ran more than it reserved left none idle)."""
    return max(0.0, nominal_gpus * hours - used_gpu_hours)


def _idle_row(team: str, flavor: str, hours, nominal, week: WeekInput) -> dict:
    price = week.prices.get(flavor)
    gpus = nominal.get((team, flavor), 0.0)
    reserved = gpus * week.covered_hours
    idle = idle_gpu_hours(gpus, week.covered_hours, hours.get((team, flavor), 0.0))
    return {
        "flavor": flavor,
        "reserved_gpu_hours": reserved,
        "idle_gpu_hours": idle,
        "usd_per_gpu_hour": None if price is None else price.usd_per_gpu_hour,
        "idle_cost": None if price is None else idle * price.usd_per_gpu_hour,
    }


def price_rows(week: WeekInput) -> list[dict]:
    return [
        {"flavor": f, "usd_per_gpu_hour": p.usd_per_gpu_hour, "source": p.source}
        for f, p in sorted(week.prices.items())
    ]
