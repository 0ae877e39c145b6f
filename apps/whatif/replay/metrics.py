"""Per-team figures of one replay, and the side-by-side verdict of two.

Waits are seconds from creation to first admission; a workload still waiting
when the window closes counts with the wait it has had so far (the same
censoring in every replay, so comparisons stay fair).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from apps.queues.quantity import parse_units
from apps.whatif.replay.engine import ReplayResult
from apps.whatif.replay.trace import TraceWorkload, is_gpu
from core.stats import mean, percentile

HOUR_MS = 3_600_000
# A team "gains" or "loses" only beyond these margins, so rounding noise is no verdict.
WAIT_MARGIN_S = 60.0
WAIT_MARGIN_RATIO = 0.05
SHARE_MARGIN = 0.01


@dataclass(frozen=True)
class TeamMetrics:
    team: str
    workloads: int
    still_waiting: int
    p50_wait_s: float | None
    p95_wait_s: float | None
    max_wait_s: float | None
    mean_wait_s: float | None
    preemptions: int
    gpu_hours_lost: float
    gpu_hours: float
    capacity_share: float  # GPU-hours held ÷ capacity × period (not the report's DCGM utilisation)
    received_share: float
    entitled_share: float

    def as_dict(self) -> dict:
        return asdict(self)


def waits_by_team(trace: list[TraceWorkload], result: ReplayResult) -> dict[str, list[float]]:
    """Seconds waited by each workload created inside the window, per team."""
    window, waits = result.window, {}
    for wl in trace:
        if not window.contains(wl.created_ms):
            continue
        outcome = result.outcomes.get(wl.key)
        admitted = outcome.first_admit_ms if outcome else None
        until = admitted if admitted is not None else window.end_ms
        waits.setdefault(wl.team, []).append(max(0, until - wl.created_ms) / 1000)
    return waits


def entitlements(queues: list[dict]) -> dict[str, float]:
    """Nominal GPUs per team, summed over its queues (snapshot dicts)."""
    entitled: dict[str, float] = {}
    for queue in queues:
        team = queue.get("team")
        if not team:
            continue
        gpus = sum(_number(q["nominal"]) for q in queue["quotas"] if is_gpu(q["resource"]))
        entitled[team] = entitled.get(team, 0.0) + gpus
    return entitled


def _number(quantity: str | None) -> float:
    return float(parse_units(quantity)) if quantity not in (None, "") else 0.0


def team_metrics(
    trace: list[TraceWorkload],
    result: ReplayResult,
    *,
    entitled: dict[str, float],
    capacity_gpus: float,
) -> dict[str, TeamMetrics]:
    """Everything the results page shows per team, for one replay."""
    waits = waits_by_team(trace, result)
    teams = sorted(set(waits) | set(entitled) | set(result.gpu_ms_by_team))
    used_total = sum(result.gpu_ms_by_team.values()) or 1.0
    entitled_total = sum(entitled.values()) or 1.0
    capacity_ms = max(capacity_gpus, 1e-9) * (result.window.end_ms - result.window.start_ms)
    losses = _losses(trace, result)
    pending = _still_waiting(trace, result)
    return {
        team: _one_team(
            team,
            waits.get(team, []),
            losses.get(team, (0, 0)),
            used=result.gpu_ms_by_team.get(team, 0.0),
            used_total=used_total,
            entitled=entitled.get(team, 0.0) / entitled_total,
            capacity_ms=capacity_ms,
            still_waiting=pending.get(team, 0),
        )
        for team in teams
    }


def _one_team(team, waits, losses, *, used, used_total, entitled, capacity_ms, still_waiting):
    preemptions, lost_gpu_ms = losses
    return TeamMetrics(
        team=team,
        workloads=len(waits),
        still_waiting=still_waiting,
        p50_wait_s=percentile(waits, 50),
        p95_wait_s=percentile(waits, 95),
        max_wait_s=max(waits) if waits else None,
        mean_wait_s=mean(waits),
        preemptions=preemptions,
        gpu_hours_lost=lost_gpu_ms / HOUR_MS,
        gpu_hours=used / HOUR_MS,
        capacity_share=used / capacity_ms,
        received_share=used / used_total,
        entitled_share=entitled,
    )


def _losses(trace: list[TraceWorkload], result: ReplayResult) -> dict[str, tuple[int, int]]:
    losses: dict[str, tuple[int, int]] = {}
    for wl in trace:
        outcome = result.outcomes.get(wl.key)
        if outcome and outcome.preemptions:
            count, lost = losses.get(wl.team, (0, 0))
            losses[wl.team] = (count + outcome.preemptions, lost + outcome.lost_gpu_ms)
    return losses


def _still_waiting(trace: list[TraceWorkload], result: ReplayResult) -> dict[str, int]:
    counts: dict[str, int] = {}
    for wl in trace:
        if result.window.contains(wl.created_ms) and wl.key not in result.outcomes:
            counts[wl.team] = counts.get(wl.team, 0) + 1
    return counts


@dataclass(frozen=True)
class TeamComparison:
    """One team under the current and the proposed policy, and the verdict.

    ``wait_noise_s`` is how far the model's waits for this team are off on the replayed
    history (``fidelity.wait_noise_s``): a p95 wait difference inside it is no verdict.
    """

    team: str
    current: dict
    proposed: dict
    verdict: str  # "gains", "loses", "mixed", "unchanged" or "within_noise"
    wait_noise_s: float = 0.0

    @property
    def verdict_text(self) -> str:
        return verdict_text(self.verdict, self.wait_noise_s)

    def as_dict(self) -> dict:
        return {**asdict(self), "verdict_text": self.verdict_text}


def compare(
    current: dict[str, dict], proposed: dict[str, dict], noise_s: dict[str, float] | None = None
) -> list[TeamComparison]:
    """Side by side per team (metrics as dicts), with who gains and who loses beyond
    each team's noise band (``noise_s``: team → seconds; none given is no noise)."""
    teams, noise_s = sorted(set(current) | set(proposed)), noise_s or {}
    return [
        TeamComparison(
            t,
            current.get(t, {}),
            proposed.get(t, {}),
            verdict(current.get(t, {}), proposed.get(t, {}), noise_s.get(t, 0.0)),
            noise_s.get(t, 0.0),
        )
        for t in teams
    ]


WITHIN_NOISE = "noise"


def verdict(before: dict, after: dict, noise_s: float = 0.0) -> str:
    """*gains* / *loses* / *mixed* on p95 wait and received share; *within_noise* when the
    only difference is a p95 wait change no larger than ``noise_s``; else *unchanged*."""
    wait = _wait_signal(before.get("p95_wait_s"), after.get("p95_wait_s"), noise_s)
    signals = {wait, _share_signal(before.get("received_share"), after.get("received_share"))}
    signals -= {0, WITHIN_NOISE}
    if not signals:
        return "within_noise" if wait == WITHIN_NOISE else "unchanged"
    if signals == {1}:
        return "gains"
    return "loses" if signals == {-1} else "mixed"


def verdict_text(verdict: str, noise_s: float) -> str:
    """The verdict as the page and the API say it."""
    if verdict == "within_noise":
        return f"within noise (±{noise_s:.0f} s)"
    return verdict


def _wait_signal(before: float | None, after: float | None, noise_s: float = 0.0) -> int | str:
    """1 shorter, -1 longer, 0 the same (rounding), ``WITHIN_NOISE`` a change the
    model's own error on this history could make."""
    if before is None or after is None:
        return 0
    change = abs(after - before)
    if change <= max(WAIT_MARGIN_S, WAIT_MARGIN_RATIO * before):
        return 0
    if change <= noise_s:
        return WITHIN_NOISE
    return 1 if after < before else -1


def _share_signal(before: float | None, after: float | None) -> int:
    if before is None or after is None:
        return 0
    if after > before + SHARE_MARGIN:
        return 1
    return -1 if after < before - SHARE_MARGIN else 0
