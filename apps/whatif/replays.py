"""Between a stored run and the pure replay core: which replays, on what, and the summary."""

from __future__ import annotations

from apps.whatif.choices import CURRENT, PROPOSED
from apps.whatif.history import ms
from apps.whatif.replay.engine import replay
from apps.whatif.replay.fidelity import fidelity
from apps.whatif.replay.metrics import compare, team_metrics
from apps.whatif.replay.sensitivity import (
    NUDGES,
    cluster_queue_names,
    nudge_key,
    nudged_objects,
    parse_nudge_key,
    sensitivity,
)
from apps.whatif.replay.trace import TraceWorkload, Window


def window_of(run) -> Window:
    return Window(ms(run.window_start), ms(run.window_end))


def replay_keys(run) -> list[str]:
    """Current and proposed; with fair sharing on, each queue's weight ±10% on the proposal."""
    keys = [CURRENT, PROPOSED]
    if run.fair_sharing:
        queues = cluster_queue_names(run.policies[PROPOSED])
        keys += [nudge_key(queue, sign) for queue in queues for sign in NUDGES]
    return keys


def objects_for(run, key: str) -> list[dict]:
    if key in (CURRENT, PROPOSED):
        return run.policies[key]
    queue, sign = parse_nudge_key(key)
    return nudged_objects(run.policies[PROPOSED], queue, sign)


def compute_replay(run, key: str, trace: list[TraceWorkload]) -> tuple[dict, dict | None]:
    """Per-team metrics of one replay; the current policy's also gets its fidelity."""
    result = replay(objects_for(run, key), trace, window_of(run))
    side = CURRENT if key == CURRENT else PROPOSED
    metrics = team_metrics(
        trace, result, entitled=run.entitled.get(side, {}), capacity_gpus=run.capacity_gpus
    )
    as_dicts = {team: m.as_dict() for team, m in metrics.items()}
    return as_dicts, fidelity(trace, result).as_dict() if key == CURRENT else None


def summarize(run, replays: dict[str, object]) -> dict:
    """The results page's data, from the finished replays of ``run`` (key → Replay row)."""
    current, proposed = replays[CURRENT], replays[PROPOSED]
    nudged = {k: r.metrics for k, r in replays.items() if k not in (CURRENT, PROPOSED)}
    return {
        "teams": [c.as_dict() for c in compare(current.metrics, proposed.metrics)],
        "fidelity": current.fidelity,
        "sensitivity": sensitivity(proposed.metrics, nudged).as_dict(),
        "fair_sharing": run.fair_sharing,
        "workloads": sum(m["workloads"] for m in current.metrics.values()),
        "replay_seconds": {k: r.seconds for k, r in replays.items()},
    }
