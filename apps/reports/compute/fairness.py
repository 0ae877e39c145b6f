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
* Decayed usage = Σ gpus·∫ 2^(−(T−t)/H) dt over the week's runs, T = week end,
  H = the half-life: recent use weighs more, as in Kueue's admission fair sharing.
* Dominant resource share = max over flavors of the team's GPU-hours ÷
  (flavor capacity × hours in the week).
"""

from __future__ import annotations

import math
from collections import defaultdict

from apps.reports.compute.records import HOUR, QueueQuota, Run, WeekInput, gpu_hours


def _events(week: WeekInput) -> dict[tuple[str, str], list[tuple[float, str, int]]]:
    """(cohort, flavor) → [(time, queue, ±gpus)] of runs clipped to the week."""
    cohort_of = {q.queue: q.cohort or f"standalone:{q.queue}" for q in week.quotas}
    events: dict[tuple[str, str], list] = defaultdict(list)
    for run in week.runs:
        start = max(run.start, week.start)
        stop = week.horizon if run.end is None else min(run.end, week.horizon)
        if stop > start and run.gpus:
            key = (cohort_of.get(run.queue, f"standalone:{run.queue}"), run.flavor)
            events[key] += [(start, run.queue, run.gpus), (stop, run.queue, -run.gpus)]
    return events


class _Sweep:
    """Integrates borrowed and lent GPU-seconds of the queues of one (cohort, flavor)."""

    def __init__(self, quotas: dict[str, QueueQuota], t0: float):
        self.quota = quotas
        self.usage: dict[str, float] = defaultdict(float)
        self.last_t: dict[str, float] = defaultdict(lambda: t0)
        self.last_f: dict[str, float] = defaultdict(float)
        self.borrowed: dict[str, float] = defaultdict(float)
        self.lent: dict[str, float] = defaultdict(float)
        self.total_borrowed = 0.0
        self.total_idle = sum(self._idle(q, 0.0) for q in quotas)
        self.t, self.f_integral = t0, 0.0
        self.known: set[str] = set(quotas)

    def _nominal(self, queue: str) -> float:
        quota = self.quota.get(queue)
        return quota.nominal if quota else 0.0

    def _idle(self, queue: str, usage: float) -> float:
        quota = self.quota.get(queue)
        if quota is None:
            return 0.0
        idle = max(0.0, quota.nominal - usage)
        return idle if quota.lending_limit is None else min(idle, quota.lending_limit)

    def advance(self, t: float) -> None:
        if self.total_idle > 0:
            self.f_integral += min(1.0, self.total_borrowed / self.total_idle) * (t - self.t)
        self.t = t

    def settle(self, queue: str) -> None:
        u = self.usage[queue]
        self.borrowed[queue] += max(0.0, u - self._nominal(queue)) * (self.t - self.last_t[queue])
        self.lent[queue] += self._idle(queue, u) * (self.f_integral - self.last_f[queue])
        self.last_t[queue], self.last_f[queue] = self.t, self.f_integral

    def change(self, queue: str, delta: int) -> None:
        self.settle(queue)
        self.known.add(queue)
        old = self.usage[queue]
        new = old + delta
        nominal = self._nominal(queue)
        self.total_borrowed += max(0.0, new - nominal) - max(0.0, old - nominal)
        self.total_idle += self._idle(queue, new) - self._idle(queue, old)
        self.usage[queue] = new

    def finish(self, t: float) -> None:
        self.advance(t)
        for queue in self.known:
            self.settle(queue)


def borrowing(week: WeekInput) -> dict[tuple[str, str], tuple[float, float]]:
    """(queue, flavor) → (borrowed GPU-hours, lent GPU-hours)."""
    by_key: dict[tuple[str, str], dict[str, QueueQuota]] = defaultdict(dict)
    for q in week.quotas:
        by_key[(q.cohort or f"standalone:{q.queue}", q.flavor)][q.queue] = q
    result: dict[tuple[str, str], tuple[float, float]] = {}
    all_events = _events(week)
    for key in set(by_key) | set(all_events):
        sweep = _Sweep(by_key.get(key, {}), week.start)
        events = all_events.get(key, [])
        events.sort(key=lambda e: e[0])
        advance, change = sweep.advance, sweep.change
        for t, queue, delta in events:
            if t != sweep.t:
                advance(t)
            change(queue, delta)
        sweep.finish(week.horizon)
        for queue in sweep.known:
            result[(queue, key[1])] = (sweep.borrowed[queue] / HOUR, sweep.lent[queue] / HOUR)
    return result


def decayed_gpu_hours(run: Run, week: WeekInput) -> float:
    """GPU-hours of the run inside the week, each weighted by 2^(−age at week end / half-life)."""
    start = max(run.start, week.start)
    stop = week.horizon if run.end is None else min(run.end, week.horizon)
    if stop <= start:
        return 0.0
    h = week.half_life_hours * HOUR
    rate = math.log(2) / h
    integral = (math.exp(-rate * (week.end - stop)) - math.exp(-rate * (week.end - start))) / rate
    return run.gpus * integral / HOUR


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


def team_rows(week: WeekInput, queues: list[dict] | None = None) -> list[dict]:
    nominal, weight = _team_quota(week)
    received: dict[str, float] = defaultdict(float)
    decayed: dict[str, float] = defaultdict(float)
    per_flavor: dict[tuple[str, str], float] = defaultdict(float)
    for run in week.runs:
        hours = gpu_hours(run, week)
        received[run.team] += hours
        decayed[run.team] += decayed_gpu_hours(run, week)
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
        capacity = week.capacity.get(flavor, 0.0) * week.hours
        if t == team and capacity and hours / capacity > best:
            best, best_flavor = hours / capacity, flavor
    return {"dominant_share": best, "dominant_flavor": best_flavor}


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None
