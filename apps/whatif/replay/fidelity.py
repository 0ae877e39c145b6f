"""How far to trust a replay: the unchanged policy against what really happened.

Replaying the recorded window under the policy that was in force should give
back the recorded waits. The gap is reported next to every prediction.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from apps.whatif.replay.engine import ReplayResult
from apps.whatif.replay.trace import TraceWorkload
from core.stats import mean, percentile


@dataclass(frozen=True)
class Fidelity:
    """Errors in seconds between recorded and replayed waits (``compared`` workloads)."""

    compared: int
    mean_abs_error_s: float | None
    p95_abs_error_s: float | None
    recorded_p95_wait_s: float | None
    replayed_p95_wait_s: float | None

    @property
    def p95_wait_error_s(self) -> float | None:
        if self.recorded_p95_wait_s is None or self.replayed_p95_wait_s is None:
            return None
        return abs(self.replayed_p95_wait_s - self.recorded_p95_wait_s)

    def as_dict(self) -> dict:
        return {**asdict(self), "p95_wait_error_s": self.p95_wait_error_s}


def wait_pairs(trace: list[TraceWorkload], result: ReplayResult) -> list[tuple[float, float]]:
    """(recorded, replayed) wait seconds of workloads created in the window; censored at its end."""
    window, pairs = result.window, []
    for wl in trace:
        if not window.contains(wl.created_ms):
            continue
        outcome = result.outcomes.get(wl.key)
        replayed = outcome.first_admit_ms if outcome else None
        pairs.append(
            (_wait(wl, wl.recorded_admit_ms, window.end_ms), _wait(wl, replayed, window.end_ms))
        )
    return pairs


def _wait(wl: TraceWorkload, admitted: int | None, end_ms: int) -> float:
    until = min(admitted, end_ms) if admitted is not None else end_ms
    return max(0, until - wl.created_ms) / 1000


def wait_noise_s(measured: Fidelity) -> float:
    """The noise band of a team's wait figures: the larger of how far the unchanged
    policy's replayed p95 wait is from the recorded one and the mean absolute error of
    its workloads' waits. A difference between two replays no larger than this is
    within what the model gets wrong on this history anyway."""
    return max(measured.p95_wait_error_s or 0.0, measured.mean_abs_error_s or 0.0)


def fidelity_by_team(trace: list[TraceWorkload], result: ReplayResult) -> dict[str, Fidelity]:
    """``fidelity`` per team, over the team's own workloads."""
    teams: dict[str, list[TraceWorkload]] = {}
    for wl in trace:
        teams.setdefault(wl.team, []).append(wl)
    return {team: fidelity(workloads, result) for team, workloads in sorted(teams.items())}


def fidelity(trace: list[TraceWorkload], result: ReplayResult) -> Fidelity:
    pairs = wait_pairs(trace, result)
    errors = [abs(replayed - recorded) for recorded, replayed in pairs]
    return Fidelity(
        compared=len(pairs),
        mean_abs_error_s=mean(errors),
        p95_abs_error_s=percentile(errors, 95),
        recorded_p95_wait_s=percentile([r for r, _ in pairs], 95),
        replayed_p95_wait_s=percentile([p for _, p in pairs], 95),
    )
