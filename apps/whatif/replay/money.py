"""Pure: what the replayed period cost now and with the draft, per team and in total.

Three figures per team and flavor, each in GPU-hours and in dollars at the flavor's
$/GPU-hour (the weekly report's prices, ``apps.reports.prices``):

* idle reserved quota: nominal GPUs × the window's hours − GPU-hours run there, never
  below zero (the report's rule, ``cost.idle_gpu_hours``);
* lost to preemption: work since the last checkpoint (else since admission) of every
  preempted run, the replay's ``lost_gpu_ms``;
* borrowed: GPU-hours run above the queue's nominal quota (``replay.borrowing``).

A flavor without a price has no dollar figures (None, "no price"); team and total
dollars leave it out and name it in ``unpriced_flavors``, never count it as $0.
"""

from __future__ import annotations

from apps.reports.compute.cost import idle_gpu_hours
from apps.whatif.replay.engine import BORROWED, LOST, USED, FlavorUse

HOUR_MS = 3_600_000
KINDS = ("idle_reserved", "lost", "borrowed")
Nominal = dict[str, dict[str, float]]
"""team → flavor → nominal GPUs."""


def money(
    current: FlavorUse,
    proposed: FlavorUse,
    nominal: tuple[Nominal, Nominal],
    prices: dict[str, float],
    hours: float,
) -> dict:
    """Per team (each flavor and summed) and in total: now, with the draft, and the change.

    ``current``/``proposed``: each replay's ``ReplayResult.by_flavor``; ``nominal``: the
    two policies' nominal GPUs; ``prices``: flavor → $/GPU-hour; ``hours``: the window's.
    """
    sides = ((current, nominal[0]), (proposed, nominal[1]))
    teams = sorted({team for use, quota in sides for team in (*use, *quota)})
    rows = [_team(team, sides, prices, hours) for team in teams]
    unpriced = sorted(
        {f["flavor"] for row in rows for f in row["flavors"] if f["usd_per_gpu_hour"] is None}
    )
    total = _with_change([_sum([row[side] for row in rows]) for side in ("current", "proposed")])
    return {"teams": rows, "total": total, "unpriced_flavors": unpriced, "hours": hours}


def _team(team: str, sides, prices: dict[str, float], hours: float) -> dict:
    flavors = sorted(
        {f for use, quota in sides for f in (*use.get(team, {}), *quota.get(team, {}))}
    )
    rows = []
    for flavor in flavors:
        price = prices.get(flavor)
        figures = [_figures(use.get(team, {}), quota.get(team, {}), flavor, price, hours)
                   for use, quota in sides]  # fmt: skip
        if any(figures[0][f"{k}_gpu_hours"] or figures[1][f"{k}_gpu_hours"] for k in KINDS):
            rows.append({"flavor": flavor, "usd_per_gpu_hour": price, **_with_change(figures)})
    current = _sum([row["current"] for row in rows])
    proposed = _sum([row["proposed"] for row in rows])
    unpriced = [row["flavor"] for row in rows if row["usd_per_gpu_hour"] is None]
    return {"team": team, "flavors": rows, "unpriced_flavors": unpriced,
            **_with_change([current, proposed])}  # fmt: skip


def _figures(use: dict, quota: dict, flavor: str, price: float | None, hours: float) -> dict:
    used, lost, borrowed = (use.get(flavor, [0.0, 0.0, 0.0])[i] / HOUR_MS
                            for i in (USED, LOST, BORROWED))  # fmt: skip
    gpu_hours = {
        "idle_reserved": idle_gpu_hours(quota.get(flavor, 0.0), hours, used),
        "lost": lost,
        "borrowed": borrowed,
    }
    out = {}
    for kind, value in gpu_hours.items():
        out[f"{kind}_gpu_hours"] = value
        out[f"{kind}_usd"] = None if price is None else value * price
    out["cost_usd"] = None if price is None else sum(out[f"{k}_usd"] for k in KINDS)
    return out


def _sum(figures: list[dict]) -> dict:
    """GPU-hours of every flavor; dollars of the priced ones only, None when none is priced."""
    keys = [f"{k}_{unit}" for k in KINDS for unit in ("gpu_hours", "usd")] + ["cost_usd"]
    return {key: _total([f[key] for f in figures]) for key in keys}


def _total(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return None if values and not known else sum(known)


def _with_change(pair: list[dict]) -> dict:
    before, after = pair
    change = {
        key: None if before[key] is None or after[key] is None else after[key] - before[key]
        for key in before
    }
    return {"current": before, "proposed": after, "change": change}
