"""A small seeded generator of traces, for tests and the benchmark.

Each ``Load`` is one kind of work a team submits: how often, how big, how long.
Arrivals are busier in working hours; the same seed gives the same trace.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from apps.whatif.replay.trace import PodSetSpec, TraceWorkload

DAY_MS = 86_400_000
GPU = "nvidia.com/gpu"


@dataclass(frozen=True)
class Load:
    team: str
    queue: str
    namespace: str
    per_day: float
    gpus: tuple[int, ...] = (1,)
    minutes: tuple[int, int] = (30, 120)
    priority: int = 100
    resource: str = GPU
    node_selector: tuple[tuple[str, str], ...] = ()
    checkpoint_minutes: int | None = None
    pods: int = 1


def synthetic_trace(
    loads: list[Load], *, start_ms: int, days: float, seed: int = 1
) -> list[TraceWorkload]:
    """Arrivals of every load over ``days`` from ``start_ms``, sorted by arrival."""
    rng = random.Random(seed)
    trace = []
    for index, load in enumerate(loads):
        count = max(0, round(rng.gauss(load.per_day * days, (load.per_day * days) ** 0.5)))
        for n in range(count):
            at = start_ms + _offset(rng, days)
            trace.append(_workload(rng, load, f"{load.queue}-{index}-{n}", at))
    return sorted(trace, key=lambda wl: (wl.created_ms, wl.key))


def _offset(rng: random.Random, days: float) -> int:
    """Three quarters of the work arrives between 08:00 and 20:00."""
    day = rng.randrange(max(1, int(days)))
    hour = rng.uniform(8, 20) if rng.random() < 0.75 else rng.uniform(0, 24)
    offset = int(day * DAY_MS + hour * 3_600_000) // 1000 * 1000
    return min(offset, int(days * DAY_MS) - 1000)


def _workload(rng: random.Random, load: Load, name: str, at: int) -> TraceWorkload:
    pod_set = PodSetSpec(
        count=load.pods,
        requests={load.resource: rng.choice(load.gpus)},
        node_selector=dict(load.node_selector),
    )
    checkpoint = load.checkpoint_minutes * 60_000 if load.checkpoint_minutes else None
    return TraceWorkload(
        uid=f"uid-{name}",
        namespace=load.namespace,
        name=name,
        team=load.team,
        queue=load.queue,
        priority=load.priority,
        created_ms=at,
        pod_sets=(pod_set,),
        work_ms=rng.randint(*load.minutes) * 60_000,
        checkpoint_ms=checkpoint,
    )
