"""A stored run's replays (between the run and the pure replay core): which, on what, summed up.

A run compares policy variants (current, proposed, and with fair sharing each
queue's weight ±10% on the proposal). Each variant is replayed cohort tree by
cohort tree (``replay.split``), a tree the variant does not change reusing an
earlier variant's replay; every replay is a task of its own.
"""

from __future__ import annotations

from apps.whatif.choices import CURRENT, PROPOSED
from apps.whatif.recorded_trace import ms
from apps.whatif.replay.borrowing import team_nominal_gpus
from apps.whatif.replay.contention import first_contention, is_weight_only, weight_note
from apps.whatif.replay.engine import ReplayResult
from apps.whatif.replay.fidelity import fidelity, fidelity_by_team, wait_noise_s
from apps.whatif.replay.metrics import compare, team_metrics
from apps.whatif.replay.money import money
from apps.whatif.replay.sensitivity import (
    NUDGES,
    cluster_queue_names,
    nudge_key,
    nudged_objects,
    parse_nudge_key,
    sensitivity,
)
from apps.whatif.replay.split import ReplayPlan, combine, plan_replays, replay_part
from apps.whatif.replay.trace import TraceWorkload, Window


def window_of(run) -> Window:
    return Window(ms(run.window_start), ms(run.window_end))


def variants(run) -> list[str]:
    """Current and proposed; with fair sharing on, each queue's weight ±10% on the proposal."""
    keys = [CURRENT, PROPOSED]
    if run.fair_sharing:
        queues = cluster_queue_names(run.policies[PROPOSED])
        keys += [nudge_key(queue, sign) for queue in queues for sign in NUDGES]
    return keys


def objects_for(run, variant: str) -> list[dict]:
    if variant in (CURRENT, PROPOSED):
        return run.policies[variant]
    queue, sign = parse_nudge_key(variant)
    return nudged_objects(run.policies[PROPOSED], queue, sign)


def replay_plan(run) -> ReplayPlan:
    """Deterministic from the run's frozen policies, so every task derives the same plan."""
    return plan_replays({variant: objects_for(run, variant) for variant in variants(run)})


def replay_keys(run) -> list[str]:
    return list(replay_plan(run).parts)


def compute_replay(run, key: str, trace: list[TraceWorkload]) -> dict:
    """One tree under one variant, as the compact result a Replay row stores."""
    objects = replay_plan(run).parts[key]
    return replay_part(objects, trace, window_of(run)).as_dict()


def summarize(
    run, replays: dict[str, object], trace: list[TraceWorkload], prices: dict | None = None
) -> dict:
    """The results page's data, from the finished replays of ``run`` (key → Replay row);
    ``prices``: flavor → the report's ``Price`` (none given: every flavor unpriced)."""
    plan, window = replay_plan(run), window_of(run)
    parts = {key: ReplayResult.from_dict(window, row.result) for key, row in replays.items()}

    def metrics_of(variant: str) -> dict[str, dict]:
        side = CURRENT if variant == CURRENT else PROPOSED
        result = combine(plan, variant, parts, window)
        metrics = team_metrics(
            trace, result, entitled=run.entitled.get(side, {}), capacity_gpus=run.capacity_gpus
        )
        return {team: m.as_dict() for team, m in metrics.items()}

    current, proposed = metrics_of(CURRENT), metrics_of(PROPOSED)
    nudged = {v: metrics_of(v) for v in variants(run) if v not in (CURRENT, PROPOSED)}
    replayed = combine(plan, CURRENT, parts, window)
    by_team = fidelity_by_team(trace, replayed)
    noise = {team: wait_noise_s(f) for team, f in by_team.items()}
    return {
        "teams": [c.as_dict() for c in compare(current, proposed, noise)],
        "fidelity": fidelity(trace, replayed).as_dict(),
        "fidelity_by_team": {team: f.as_dict() for team, f in by_team.items()},
        "weights": weights_of(run, trace),
        "sensitivity": sensitivity(proposed, nudged).as_dict(),
        "fair_sharing": run.fair_sharing,
        "workloads": sum(m["workloads"] for m in current.values()),
        "trees": len(plan.groups),
        "replay_seconds": {k: r.seconds for k, r in replays.items()},
        "money": money_of(run, replayed, combine(plan, PROPOSED, parts, window), prices or {}),
    }


def money_of(run, current: ReplayResult, proposed: ReplayResult, prices: dict) -> dict:
    """Idle reserved quota, lost work and borrowing of both sides, priced (``replay.money``)."""
    nominal = (team_nominal_gpus(run.policies[CURRENT]), team_nominal_gpus(run.policies[PROPOSED]))
    usd = {flavor: price.usd_per_gpu_hour for flavor, price in prices.items()}
    figures = money(current.by_flavor, proposed.by_flavor, nominal, usd, window_of(run).hours)
    rows = [
        {"flavor": flavor, "usd_per_gpu_hour": price.usd_per_gpu_hour, "source": price.source}
        for flavor, price in sorted(prices.items())
    ]
    return {**figures, "prices": rows}


def weights_of(run, trace: list[TraceWorkload]) -> dict | None:
    """For a weight-only draft: whether it can matter on this history, and why."""
    if not is_weight_only(run.changes):
        return None
    found = None
    if run.fair_sharing:
        drafted = set(run.draft) & set(cluster_queue_names(run.policies[CURRENT]))
        found = first_contention(run.policies[CURRENT], trace, window_of(run), drafted)
    return weight_note(run.changes, fair_sharing=run.fair_sharing, contention=found)
