"""What the lending-limit rule reads: queues with a GPU ``lendingLimit``, and what each
limit held back per week, from the recorded workloads (``WorkloadRecord``).

Reads only. A team's workloads hold GPUs from their first admission to their finish
(as ``suggestion_list.peak_gpus`` counts them); another team's workload waits from its
creation to its first admission (or its finish, or the window's end). A pending workload
has no flavor yet: it counts as wanting any flavor, with all its GPUs; one admitted later
wanted the flavor it got.
"""

from __future__ import annotations

from collections import Counter

from apps.queues.quantity import parse_units
from apps.reports.compute.weeks import week_bounds
from apps.reports.models import WorkloadRecord
from apps.whatif.lending import HeldWeek, LendingQueue, Span, held_back
from apps.whatif.suggestions import GPU

SECONDS_PER_HOUR = 3600.0


def lending_queues(saved: list[dict]) -> list[LendingQueue]:
    """From queue snapshots: each team's one queue on a flavor in a cohort with a GPU
    ``lendingLimit`` (a team with several queues on the flavor: which lends is its call)."""
    # Every team queue counts, in a cohort or not: the team's workloads are told apart
    # by team only, so its usage on the flavor is its one queue's only if it has one.
    gpu = [
        (q, quota) for q in saved if q["team"] for quota in q["quotas"] if quota["resource"] == GPU
    ]
    per_team_flavor = Counter((q["team"], quota["flavor"]) for q, quota in gpu)
    return [
        LendingQueue(
            q["team"],
            q["name"],
            quota["flavor"],
            q["cohort"],
            _number(quota["nominal"]),
            _number(quota["lending_limit"]),
        )
        for q, quota in gpu
        if q["cohort"]
        and quota["lending_limit"] not in (None, "")
        and per_team_flavor[(q["team"], quota["flavor"])] == 1
    ]


def held_back_weeks(
    queues: list[LendingQueue], saved: list[dict], weeks: list[str]
) -> dict[tuple[str, str], list[HeldWeek]]:
    """(queue, flavor) → what its lending limit held back in each of ``weeks`` (newest first)."""
    if not queues or not weeks:
        return {}
    start, end = week_bounds(min(weeks))[0], week_bounds(max(weeks))[1]
    records = list(
        WorkloadRecord.objects.overlapping(start, end).values_list(
            "team_slug", "gpus", "gpus_by_flavor", "created_at", "first_admitted_at", "finished_at"
        )
    )
    teams_of = _cohort_teams(saved)
    found = {}
    for q in queues:
        others = teams_of[q.cohort] - {q.team}
        own = [_held(r, q.flavor, end) for r in records if r[0] == q.team]
        waiting = [_waited(r, q.flavor, end) for r in records if r[0] in others]
        own, waiting = [s for s in own if s], [s for s in waiting if s]
        found[(q.queue, q.flavor)] = [_week(week, q, own, waiting) for week in weeks]
    return found


def _week(week: str, q: LendingQueue, own: list[Span], waiting: list[Span]) -> HeldWeek:
    lo, hi = (t.timestamp() / SECONDS_PER_HOUR for t in week_bounds(week))
    figure = held_back(q.nominal, q.lending_limit, own, waiting, (lo, hi))
    return HeldWeek(week, figure.gpu_hours, figure.peak_gpus)


def _number(value) -> float:
    return float(parse_units(value))


def _cohort_teams(saved: list[dict]) -> dict[str, set[str]]:
    teams: dict[str, set[str]] = {}
    for q in saved:
        if q["cohort"] and q["team"]:
            teams.setdefault(q["cohort"], set()).add(q["team"])
    return teams


def _held(record, flavor: str, end) -> Span | None:
    _, _, by_flavor, _, admitted, finished = record
    gpus = int((by_flavor or {}).get(flavor, 0))
    if not gpus or admitted is None:
        return None
    return _span(admitted, finished or end, gpus)


def _waited(record, flavor: str, end) -> Span | None:
    _, gpus, by_flavor, created, admitted, finished = record
    # Admitted at some point: it wanted the flavor it got. Never: it could have run on any.
    wanted = int(by_flavor.get(flavor, 0)) if by_flavor else gpus
    stop = admitted or finished or end
    return _span(created, stop, wanted) if wanted and stop > created else None


def _span(start, stop, gpus: int) -> Span:
    return (start.timestamp() / SECONDS_PER_HOUR, stop.timestamp() / SECONDS_PER_HOUR, gpus)
