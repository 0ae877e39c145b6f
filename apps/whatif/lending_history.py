"""What the lending-limit rule reads: queues with a GPU ``lendingLimit``, and what each
limit held back per week, from the recorded workloads (``WorkloadRecord``).

Reads only. A team's workloads hold GPUs from their first admission to their finish
(as ``suggestion_list.peak_gpus`` counts them); another team's workload waits from its
creation to its first admission (or its finish, or the window's end). A pending workload
has no flavor yet: it counts as wanting any flavor, with all its GPUs; one admitted later
wanted the flavor it got. Each moment is measured against the nominal and lending limit
in force then, read from the queue's audited saves (each keeps the queue's whole policy
before and after).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from apps.queues.models import AuditEntry, Queue
from apps.queues.quantity import parse_units
from apps.reports.compute.weeks import week_bounds
from apps.reports.models import WorkloadRecord
from apps.whatif.lending import HeldWeek, InForce, LendingQueue, Span, held_back_in_force
from apps.whatif.suggestions import GPU
from core.audit import AuditAction

SECONDS_PER_HOUR = 3600.0
NO_QUOTA = (0.0, None)  # no GPU quota on the flavor in a saved policy


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
    saves = audited_saves({q.queue for q in queues})
    found = {}
    for q in queues:
        others = teams_of[q.cohort] - {q.team}
        own = [_held(r, q.flavor, end) for r in records if r[0] == q.team]
        waiting = [_waited(r, q.flavor, end) for r in records if r[0] in others]
        own, waiting = [s for s in own if s], [s for s in waiting if s]
        in_force = policy_in_force(q, saves.get(q.queue, []))
        found[(q.queue, q.flavor)] = [_week(week, in_force, own, waiting) for week in weeks]
    return found


def audited_saves(names: set[str]) -> dict[str, list[tuple]]:
    """Queue name → (when, policy before, policy after) of each audited creation and
    save, oldest first."""
    ids = dict(Queue.objects.filter(name__in=names).values_list("pk", "name"))
    rows = (
        AuditEntry.objects.filter(
            object_type="queue",
            object_id__in=[str(pk) for pk in ids],
            action__in=(AuditAction.CREATE, AuditAction.UPDATE),
        )
        .order_by("at", "pk")
        .values_list("object_id", "at", "before", "after")
    )
    saves = defaultdict(list)
    for object_id, at, before, after in rows:
        saves[ids[int(object_id)]].append((at, before, after))
    return dict(saves)


def policy_in_force(q: LendingQueue, saves: list[tuple]) -> list[InForce]:
    """The GPU nominal and lending limit of ``q`` on its flavor over time, from its
    audited saves: each from its save on. Before the first, what that save replaced; when
    that had no such quota (the queue was created then), the earliest saved quota: the
    workloads recorded before the portal saved any policy of the queue ran under a policy
    it never saw, and the first it saw is the best guess. No audited quota at all: the
    policy as saved now, all along."""
    changes = [
        (at.timestamp() / SECONDS_PER_HOUR, *_gpu_quota(after, q.flavor)) for at, _, after in saves
    ]
    first = [c[1:] for c in changes if c[1:] != NO_QUOTA]
    if not first:
        return [(-math.inf, q.nominal, q.lending_limit)]
    replaced = _gpu_quota(saves[0][1], q.flavor)
    return [(-math.inf, *(first[0] if replaced == NO_QUOTA else replaced)), *changes]


def _gpu_quota(policy: dict | None, flavor: str) -> tuple[float, float | None]:
    for quota in (policy or {}).get("quotas", []):
        if quota["flavor"] == flavor and quota["resource"] == GPU:
            limit = quota.get("lending_limit")
            return _number(quota["nominal"]), None if limit in (None, "") else _number(limit)
    return NO_QUOTA


def _week(week: str, in_force: list[InForce], own: list[Span], waiting: list[Span]) -> HeldWeek:
    lo, hi = (t.timestamp() / SECONDS_PER_HOUR for t in week_bounds(week))
    figure = held_back_in_force(in_force, own, waiting, (lo, hi))
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
