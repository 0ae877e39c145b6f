"""Fairness: entitled vs received GPU-hours, borrowing and lending, decayed usage, DRS.

* Entitled share of a team = its nominal GPUs ÷ all nominal GPUs; its weight
  share = Σ fair-sharing weights of its queues ÷ Σ over all teams.
* Received = GPU-hours of its admitted runs inside the week.
* Borrowed by a queue at time t = max(0, usage − nominal) on a flavor. Lent by a
  queue = its idle lendable quota min(nominal − usage, lendingLimit) times the
  fraction of the cohort's idle lendable quota that borrowers used at t,
  min(1, Σ borrowed ÷ Σ idle lendable) — i.e. borrowing is charged to lenders in
  proportion to what each had idle. Both integrate exactly over the piecewise
  constant usage.
* Decayed usage = Σ gpus·∫ 2^(−(T−t)/H) dt over the week's runs, T = the horizon
  (week end, or the build while the week is in progress: ages are measured from now,
  not from a Monday still to come), H = the half-life: recent use weighs more, as in
  Kueue's admission fair sharing.
* Dominant resource share = max over flavors of the team's GPU-hours ÷
  (flavor capacity × hours covered: the week, or its hours so far while in progress).
"""

from __future__ import annotations

import math
from collections import defaultdict
from operator import itemgetter

from apps.reports.compute.records import HOUR, QueueQuota, WeekInput, run_gpu_hours


def _events(week: WeekInput) -> dict[tuple[str, str], list[tuple[float, str, int]]]:
    """(cohort, flavor) → [(time, queue, ±gpus)] of runs clipped to the week."""
    cohort_of = {q.queue: q.cohort or f"standalone:{q.queue}" for q in week.quotas}
    events: dict[tuple[str, str], list] = defaultdict(list)
    lo, hi = week.start, week.horizon  # read once: ``horizon`` is a property
    for run in week.runs:
        # max(run.start, lo) and min(end, hi) inline, as in ``_sweep``: ~250,000 runs
        start, end = run.start, run.end
        start = start if start > lo else lo
        stop = hi if end is None or end > hi else end
        queue, gpus = run.queue, run.gpus
        if stop > start and gpus:
            # .get(…) or …: the default is only formatted for a queue without quota
            key = (cohort_of.get(queue) or f"standalone:{queue}", run.flavor)
            events[key] += [(start, queue, gpus), (stop, queue, -gpus)]
    return events


def borrowing(week: WeekInput) -> dict[tuple[str, str], tuple[float, float]]:
    """(queue, flavor) → (borrowed GPU-hours, lent GPU-hours)."""
    by_key: dict[tuple[str, str], dict[str, QueueQuota]] = defaultdict(dict)
    for q in week.quotas:
        by_key[(q.cohort or f"standalone:{q.queue}", q.flavor)][q.queue] = q
    result: dict[tuple[str, str], tuple[float, float]] = {}
    all_events = _events(week)
    for key in set(by_key) | set(all_events):
        events = all_events.get(key, [])
        events.sort(key=itemgetter(0))
        seconds = _sweep(by_key.get(key, {}), events, week.start, week.horizon)
        for queue, (borrowed, lent) in seconds.items():
            result[(queue, key[1])] = (borrowed / HOUR, lent / HOUR)
    return result


def _sweep(quotas: dict[str, QueueQuota], events, t0: float, horizon: float) -> dict:
    """Borrowed and lent GPU-seconds of the queues of one (cohort, flavor): queue → [b, l].

    One pass over the time-sorted events with each queue's state in one list
    (usage, last settled time, f-integral then, borrowed, lent, nominal, lending
    limit): ~500,000 events a week, so no method call per event. ``f`` integrates
    the fraction of idle lendable quota that borrowers used, min(1, Σ borrowed ÷
    Σ idle); a queue's lent seconds grow by its idle quota × the change of ``f``
    since it was last settled. A queue without quota has nominal 0 and lends nothing
    (limit 0). ``max(0.0, x)`` is written ``x if x > 0.0 else 0.0`` and
    ``min(x, limit)`` ``limit if limit < x else x``: the same values, inline.
    """
    state = {q: [0.0, t0, 0.0, 0.0, 0.0, quota.nominal, _limit(quota)]
             for q, quota in quotas.items()}  # fmt: skip
    total_idle = sum(_idle(s[5], s[6], 0.0) for s in state.values())
    total_borrowed, t, f = 0.0, t0, 0.0
    for at, queue, delta in events:
        if at != t:
            if total_idle > 0:
                share = total_borrowed / total_idle
                f += (share if share < 1.0 else 1.0) * (at - t)
            t = at
        s = state.get(queue)
        if s is None:
            s = state[queue] = [0.0, t0, 0.0, 0.0, 0.0, 0.0, 0.0]
        usage, nominal, limit = s[0], s[5], s[6]
        over, idle = usage - nominal, nominal - usage
        over = over if over > 0.0 else 0.0
        idle = idle if idle > 0.0 else 0.0
        idle = limit if limit < idle else idle
        s[3] += over * (t - s[1])
        s[4] += idle * (f - s[2])
        new = usage + delta
        new_over, new_idle = new - nominal, nominal - new
        new_idle = new_idle if new_idle > 0.0 else 0.0
        total_borrowed += (new_over if new_over > 0.0 else 0.0) - over
        total_idle += (limit if limit < new_idle else new_idle) - idle
        s[0], s[1], s[2] = new, t, f
    if total_idle > 0:
        f += min(1.0, total_borrowed / total_idle) * (horizon - t)
    return {
        queue: (borrowed + max(0.0, usage - nominal) * (horizon - last_t),
                lent + _idle(nominal, limit, usage) * (f - last_f))
        for queue, (usage, last_t, last_f, borrowed, lent, nominal, limit) in state.items()
    }  # fmt: skip


def _limit(quota: QueueQuota) -> float:
    return math.inf if quota.lending_limit is None else quota.lending_limit


def _idle(nominal: float, limit: float, usage: float) -> float:
    """Idle lendable quota: min(nominal − usage, lending limit), at least 0."""
    return min(max(0.0, nominal - usage), limit)


def decayed_gpu_hours(week: WeekInput) -> list[float]:
    """Per run: its GPU-hours inside the week, each weighted by 2^(−age at the horizon /
    half-life)."""
    lo, hi = week.start, week.horizon
    rate = math.log(2) / (week.half_life_hours * HOUR)
    exp = math.exp
    decayed = []
    for run in week.runs:
        start, end = run.start, run.end  # max and min inline, as in ``_events``
        start = start if start > lo else lo
        stop = hi if end is None or end > hi else end
        if stop <= start:
            decayed.append(0.0)
            continue
        integral = (exp(-rate * (hi - stop)) - exp(-rate * (hi - start))) / rate
        decayed.append(run.gpus * integral / HOUR)
    return decayed


def queue_rows(week: WeekInput) -> list[dict]:
    team_of = {q.queue: q.team for q in week.quotas} | {r.queue: r.team for r in week.runs}
    nominal = {(q.queue, q.flavor): q.nominal for q in week.quotas}
    return [
        {
            "queue": queue,
            "flavor": flavor,
            "team": team_of.get(queue, ""),
            "nominal": nominal.get((queue, flavor), 0.0),
            "borrowed_gpu_hours": borrowed,
            "lent_gpu_hours": lent,
        }
        for (queue, flavor), (borrowed, lent) in sorted(borrowing(week).items())
    ]


def team_rows(
    week: WeekInput, queues: list[dict] | None = None, run_hours: list[float] | None = None
) -> list[dict]:
    """One row per team; ``queues`` and ``run_hours`` (``queue_rows``, ``run_gpu_hours``)
    when the caller has them."""
    nominal, weight = _team_quota(week)
    received: dict[str, float] = defaultdict(float)
    decayed: dict[str, float] = defaultdict(float)
    per_flavor: dict[tuple[str, str], float] = defaultdict(float)
    run_hours = run_gpu_hours(week) if run_hours is None else run_hours
    hours_and_decayed = zip(run_hours, decayed_gpu_hours(week), strict=True)
    for run, (hours, weighted) in zip(week.runs, hours_and_decayed, strict=True):
        received[run.team] += hours
        decayed[run.team] += weighted
        per_flavor[(run.team, run.flavor)] += hours
    lend = defaultdict(lambda: [0.0, 0.0])
    for row in queue_rows(week) if queues is None else queues:
        lend[row["team"]][0] += row["borrowed_gpu_hours"]
        lend[row["team"]][1] += row["lent_gpu_hours"]
    teams = sorted(set(nominal) | set(received))
    total_nominal, total_weight = sum(nominal.values()), sum(weight.values())
    total_received = sum(received.values())
    return [
        {
            "team": team,
            "nominal_gpus": nominal.get(team, 0.0),
            "entitled_share": _ratio(nominal.get(team, 0.0), total_nominal),
            "weight": weight.get(team, 0.0),
            "weight_share": _ratio(weight.get(team, 0.0), total_weight),
            "received_gpu_hours": received.get(team, 0.0),
            "received_share": _ratio(received.get(team, 0.0), total_received),
            "borrowed_gpu_hours": lend[team][0],
            "lent_gpu_hours": lend[team][1],
            "decayed_gpu_hours": decayed.get(team, 0.0),
            "gpu_hours_by_flavor": {f: h for (t, f), h in sorted(per_flavor.items()) if t == team},
            **_dominant(team, per_flavor, week),
        }
        for team in teams
    ]


def _team_quota(week: WeekInput) -> tuple[dict[str, float], dict[str, float]]:
    nominal: dict[str, float] = defaultdict(float)
    weights: dict[str, dict[str, float]] = defaultdict(dict)
    for q in week.quotas:
        if q.team:
            nominal[q.team] += q.nominal
            weights[q.team][q.queue] = q.weight
    return dict(nominal), {team: sum(w.values()) for team, w in weights.items()}


def _dominant(team: str, per_flavor: dict[tuple[str, str], float], week: WeekInput) -> dict:
    best, best_flavor = 0.0, ""
    for (t, flavor), hours in per_flavor.items():
        capacity = week.capacity.get(flavor, 0.0) * week.covered_hours
        if t == team and capacity and hours / capacity > best:
            best, best_flavor = hours / capacity, flavor
    return {"dominant_share": best, "dominant_flavor": best_flavor}


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None
