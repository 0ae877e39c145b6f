"""Pure: what one workload's transitions do to its team's GPUs in use and queue.

A workload is *pending* (in the queue) from creation, and again from an eviction or
requeue, until its next admission; *running* (its GPUs in use: the admitted
reservation) from an admission until an eviction, finish or deletion; *done* after a
finish or deletion, whatever is recorded later. A quota reservation alone is still
pending (Kueue counts admission, not reservation, as use); a checkpoint or a
``Preempted`` note changes nothing (the eviction beside it does).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from informer.workload import Transition

PENDING, RUNNING, DONE = "pending", "running", "done"
_STATE_AFTER = {
    Transition.CREATED.value: PENDING,
    Transition.PENDING.value: PENDING,
    Transition.ADMITTED.value: RUNNING,
    Transition.EVICTED.value: PENDING,
    Transition.REQUEUED.value: PENDING,
    Transition.FINISHED.value: DONE,
    Transition.DELETED.value: DONE,
}
SECONDS_PER_MINUTE = 60
# The levels a team has at every moment, in the order of each change's deltas.
LEVELS = ("gpus_in_use", "pending_workloads", "pending_gpus")

# (GPUs in use, pending workloads, pending GPUs) of a workload in each state.
_LEVELS = {None: (0, 0, 0), PENDING: (0, 1, 1), RUNNING: (1, 0, 0), DONE: (0, 0, 0)}


def level_changes(gpus: int, steps: Iterable[tuple[str, float]]) -> list[tuple[float, tuple]]:
    """(time, (Δ GPUs in use, Δ pending workloads, Δ pending GPUs)) at each change of state.

    ``steps``: (type, Unix seconds) in replay order (``timeline.RANK`` breaks ties)."""
    changes, state = [], None
    for kind, at in steps:
        after = _STATE_AFTER.get(kind, state)
        if state == DONE or after == state:
            continue
        old, new = _LEVELS[state], _LEVELS[after]
        changes.append((at, (gpus * (new[0] - old[0]), new[1] - old[1], gpus * (new[2] - old[2]))))
        state = after
    return changes


def per_minute(team: str, changes: list[tuple[float, tuple]]) -> Counter:
    """``changes`` summed per (team, minute since the epoch), one Counter per level."""
    totals: Counter = Counter()
    for at, deltas in changes:
        minute = int(at // SECONDS_PER_MINUTE)
        for level, delta in zip(LEVELS, deltas, strict=True):
            totals[(team, minute, level)] += delta
    return totals
