"""A small two-team world for replay tests, built without the database."""

from __future__ import annotations

from dataclasses import replace

from apps.queues import kueue
from apps.whatif.policies import policy_objects
from apps.whatif.replay.engine import replay
from apps.whatif.replay.synthetic import Load, synthetic_trace
from apps.whatif.replay.trace import TraceWorkload, Window

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
DAY_MS = 86_400_000
PREEMPTION = {
    "reclaim_within_cohort": "Any",
    "within_cluster_queue": "LowerPriority",
    "borrow_within_cohort": "Never",
    "borrow_max_priority_threshold": None,
}


def queue(team: str, nominal: str, *, weight: str = "1", cohort: str | None = "research") -> dict:
    return {
        "name": team,
        "team": team,
        "cohort": cohort,
        "fair_weight": weight,
        "queueing_strategy": "BestEffortFIFO",
        "stop_policy": "None",
        "preemption": dict(PREEMPTION),
        "quotas": [
            {
                "flavor": "h100",
                "resource": "nvidia.com/gpu",
                "nominal": nominal,
                "borrowing_limit": None,
                "lending_limit": None,
            }
        ],
    }


def state(queues: list[dict]) -> kueue.PolicyState:
    return kueue.PolicyState(
        flavors=[{"name": "h100", "node_labels": {"gpu": "h100"}}],
        cohorts=[{"name": "research", "parent": None, "fair_weight": "1"}],
        tiers=[],
        teams=[kueue.TeamSpec(q["team"], "", (f"team-{q['team']}",)) for q in queues],
        queues=queues,
    )


def loads(per_day: float = 40) -> list[Load]:
    return [
        Load(
            t,
            t,
            f"team-{t}",
            per_day=per_day,
            gpus=(1, 2, 4),
            minutes=(30, 180),
            checkpoint_minutes=30,
        )
        for t in ("vision", "nlp")
    ] + [
        Load(
            "nlp",
            "nlp",
            "team-nlp",
            per_day=per_day / 4,
            gpus=(8,),
            minutes=(60, 240),
            priority=500,
        )
    ]


def seeded_trace(days: int = 2, seed: int = 7, per_day: float = 40) -> list[TraceWorkload]:
    return synthetic_trace(loads(per_day), start_ms=START_MS, days=days, seed=seed)


def window(days: int = 2) -> Window:
    return Window(START_MS, START_MS + days * DAY_MS)


def recorded(objects: list[dict], trace: list[TraceWorkload], days: int = 2) -> list[TraceWorkload]:
    """The history a cluster under ``objects`` would have recorded for ``trace``."""
    result = replay(objects, trace, window(days))
    return [
        replace(
            wl, recorded_admit_ms=o.first_admit_ms if (o := result.outcomes.get(wl.key)) else None
        )
        for wl in trace
    ]


def objects(queues: list[dict], *, fair_sharing: bool = False) -> list[dict]:
    return policy_objects(state(queues), fair_sharing=fair_sharing)


def team_workload(name: str, team: str, created_ms: int, pod_sets, **recorded) -> TraceWorkload:
    """A hand-written workload of ``team`` (namespace ``team-<team>``, queue ``<team>``)."""
    return TraceWorkload(
        uid=name,
        namespace=f"team-{team}",
        name=name,
        team=team,
        queue=team,
        priority=0,
        created_ms=created_ms,
        pod_sets=pod_sets,
        **recorded,
    )
