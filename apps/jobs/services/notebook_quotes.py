"""Quotes for notebooks: what would happen to a notebook requested now. Reads only.

The interactive pool never borrows and takes back what it lends at once, and the portal
refuses a notebook it has no room for, so the answer comes from the pool's own
accounting (the request's checks), not from the admission model: ``never`` when the
pool could never hold it, ``now`` when it has room, ``later`` (with when its notebooks
would free the room, ``pool_eta``) when it is full.
"""

from __future__ import annotations

from dataclasses import replace

from django.utils import timezone

from apps.jobs import verdict
from apps.jobs.eta import StartEstimate
from apps.jobs.expected_cost import run_time
from apps.jobs.models import Notebook
from apps.jobs.pool_eta import Holder, room_at
from apps.jobs.pool_queue import pool_snapshot
from apps.jobs.preemption_risk import (
    PreemptionRisk,
    policy_summary,
    preemption_risk,
    who_could_preempt,
)
from apps.jobs.run_history import expected_run, recorded_lifetimes
from apps.jobs.services.common import Principal
from apps.jobs.services.notebooks import (
    NotebookRequest,
    check_notebook_limits,
    checked_notebook_request,
)
from apps.jobs.services.quotes import priced
from apps.queues.kueue import render_cluster_queue
from core.errors import RuleBroken


def quote_notebook(user, spec: NotebookRequest, *, actor: Principal) -> verdict.Verdict:
    """The verdict on ``spec``; a broken rule is raised as on request, except that a
    notebook the pool could never hold is ``never`` and a full pool is ``later``."""
    now = timezone.now()
    try:
        pool, team, _, pool_flavor, _, ttl_hours = checked_notebook_request(user, spec, actor=actor)
    except RuleBroken as exc:
        if exc.code != "never_fits":
            raise
        return verdict.never(exc.detail, field_name=exc.field)
    flavor = pool_flavor.flavor
    lifetimes = recorded_lifetimes({(team.pk, flavor.pk)}, now=now)
    try:
        check_notebook_limits(pool, user, pool_flavor, spec.gpus)
    except RuleBroken as exc:
        if exc.code != "pool_full":
            raise
        answer = _full(exc.detail, pool, pool_flavor, spec.gpus, now=now)
    else:
        answer = verdict.Verdict(verdict.NOW, f"it would start now on the pool's {flavor.name}")
    own = expected_run(lifetimes.get((team.pk, flavor.pk), []), ttl_hours * 3600)
    answer = replace(answer, risk=_pool_risk(pool, own, ttl_hours * 3600))
    return priced(answer, flavor.name, spec.gpus, own, ttl_hours * 3600)


def _pool_risk(pool, run, bound_s: int) -> PreemptionRisk:
    """The pool's queue preempts nothing within itself and never borrows, so by its
    policy nothing may preempt a notebook; its tier's batch history does not apply."""
    objects = [render_cluster_queue(pool_snapshot(pool))]
    threats = who_could_preempt(
        objects, pool.name, priority=pool.priority_tier.value, higher_tier=True, borrows=False
    )
    summary = policy_summary(objects, pool.name, threats, borrows=False)
    run_s, basis = run_time(run, bound_s)
    return preemption_risk(threats, summary, None, run_hours=run_s / 3600, run_time_basis=basis)


def _full(reason: str, pool, pool_flavor, gpus: int, *, now) -> verdict.Verdict:
    active = list(
        Notebook.objects.active()
        .filter(pool=pool, flavor=pool_flavor.flavor)
        .values_list("team_id", "gpus", "ready_at", "expires_at")
    )
    lifetimes = recorded_lifetimes({(t, pool_flavor.flavor_id) for t, *_ in active}, now=now)
    holders = [
        Holder(
            gpus,
            _ms(ready_at),
            expected_run(
                lifetimes.get((team_id, pool_flavor.flavor_id), []),
                round((expires_at - (ready_at or now)).total_seconds()),
            ),
            _ms(expires_at),
        )
        for team_id, gpus, ready_at, expires_at in active
    ]
    now_ms = _ms(now)
    estimate = StartEstimate(
        *(
            room_at(pool_flavor.gpus, gpus, holders, now_ms=now_ms, pick=pick)
            for pick in ("p50_s", "p90_s")
        ),
        unknown=(),
    )
    return verdict.waiting(reason, estimate, _note(holders))


def _note(holders: list[Holder]) -> str:
    unknown = sum(1 for h in holders if h.expected is None)
    if not unknown:
        return "from the recorded lifetimes of the pool's notebooks of this flavor"
    if unknown == 1:
        return "assuming the notebook without a recorded lifetime runs until it expires"
    return f"assuming the {unknown} notebooks without a recorded lifetime run until they expire"


def _ms(moment) -> int | None:
    return None if moment is None else round(moment.timestamp() * 1000)
