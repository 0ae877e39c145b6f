"""Rule "raise a lending limit" (issue 30), and the "held back" figure it reads. Pure.

The weekly report keeps what a queue lent, not what its ``lendingLimit`` kept back, so
the figure is computed here from the recorded workloads. At each moment of a week, on a
flavor:

- the team's **unused** nominal is its nominal minus the GPUs its workloads held;
- the part of it **above the lending limit** is what the limit forbade lending:
  ``max(0, unused − lendingLimit)``;
- the **waiting** GPUs are those of other cohort teams' pending workloads that would
  have fit in the team's unused nominal (each workload's GPUs ≤ unused);
- **held back** is the smaller of the two: GPUs idle behind the limit that someone
  was waiting for.

Summed over the week it gives held-back GPU-hours, and its largest value the most GPUs
held back at once. The rule: held back at least ``HELD_BACK_AT_LEAST_GPU_HOURS`` in every
one of the newest 2–4 finished weeks. The proposed limit is the current one plus the
median over those weeks of the most GPUs held back at once, rounded up, and never above
the nominal (Kueue requires ``lendingLimit ≤ nominalQuota``).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass

from apps.whatif.suggestions import MIN_WEEKS, OverWeeks, quota_draft

HELD_BACK_AT_LEAST_GPU_HOURS = 24.0  # a GPU-day a week: less is noise, not a pattern
RAISE_LENDING_LIMIT = "raise-lending-limit"

# (start, end, GPUs): start and end in hours on any one clock, end exclusive.
Span = tuple[float, float, int]


@dataclass(frozen=True)
class HeldBack:
    gpu_hours: float
    peak_gpus: int


def held_back(
    nominal: float, lending_limit: float, own: list[Span], waiting: list[Span], window: tuple
) -> HeldBack:
    """What ``lending_limit`` held back in ``window`` (start, end): ``own`` are the team's
    workloads holding GPUs, ``waiting`` other cohort teams' workloads while pending."""
    # A sweep over the instants where something starts or ends: the work per stretch is
    # one pass over the distinct workload sizes, not over every workload of the week.
    start, end = window
    held_gpus: dict[float, int] = defaultdict(int)
    sizes: dict[float, Counter] = defaultdict(Counter)
    for s, e, g in _clipped(own, start, end):
        held_gpus[s] += g
        held_gpus[e] -= g
    for s, e, g in _clipped(waiting, start, end):
        sizes[s][g] += 1
        sizes[e][g] -= 1
    cuts = sorted({start, end, *held_gpus, *sizes})
    used, pending = 0, Counter()
    gpu_hours, peak = 0.0, 0
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        used += held_gpus.get(lo, 0)
        pending.update(sizes.get(lo, {}))
        unused = max(0.0, nominal - used)
        above_limit = max(0.0, unused - lending_limit)
        wanted = sum(g * n for g, n in pending.items() if g <= unused)
        held = min(above_limit, wanted)
        gpu_hours += held * (hi - lo)
        peak = max(peak, math.ceil(held))
    return HeldBack(gpu_hours, peak)


# (from, nominal, lendingLimit or None): a queue's GPU quota on a flavor from that hour
# on, until the next; None: no limit (it may lend all), or no such quota then.
InForce = tuple[float, float, float | None]


def held_back_in_force(
    in_force: list[InForce], own: list[Span], waiting: list[Span], window: tuple
) -> HeldBack:
    """``held_back`` over ``window`` with the nominal and limit in force at each moment
    (``in_force`` oldest first); a stretch without a limit holds nothing back."""
    start, end = window
    gpu_hours, peak = 0.0, 0
    for (since, nominal, limit), until in zip(
        in_force, [f[0] for f in in_force[1:]] + [end], strict=True
    ):
        lo, hi = max(start, since), min(end, until)
        if limit is None or lo >= hi:
            continue
        part = held_back(nominal, limit, own, waiting, (lo, hi))
        gpu_hours, peak = gpu_hours + part.gpu_hours, max(peak, part.peak_gpus)
    return HeldBack(gpu_hours, peak)


def _clipped(spans: list[Span], start: float, end: float) -> list[Span]:
    clipped = [(max(s, start), min(e, end), g) for s, e, g in spans]
    return [(s, e, g) for s, e, g in clipped if s < e]


@dataclass(frozen=True)
class HeldWeek:
    """One week's evidence: GPU-hours held back by the limit, and the most at once."""

    week: str
    held_gpu_hours: float
    peak_gpus: int


@dataclass(frozen=True)
class LendingQueue:
    """A team's one queue on a flavor, in a cohort, with a GPU ``lendingLimit`` (now)."""

    team: str
    queue: str
    flavor: str
    cohort: str
    nominal: float
    lending_limit: float


@dataclass(frozen=True)
class LendingLimitSuggestion(OverWeeks):
    """A draft raising one queue's GPU ``lendingLimit`` on one flavor, with its evidence."""

    team: str
    queue: str
    flavor: str
    cohort: str
    nominal: float
    current_limit: float
    proposed_limit: int
    weeks: tuple[HeldWeek, ...]
    kind: str = RAISE_LENDING_LIMIT

    @property
    def title(self) -> str:
        return (
            f"Lend more of {self.queue} on {self.flavor}: "
            f"{self.current_limit:g} → {self.proposed_limit} GPUs"
        )

    def evidence(self) -> dict:
        return {
            "summary": (
                f"Team {self.team}'s idle quota above its lending limit was wanted by other "
                f"teams of cohort {self.cohort} in every week (nominal {self.nominal:g})."
            ),
            "facts": {
                "team": self.team,
                "cohort": self.cohort,
                "nominal": self.nominal,
                "current_limit": self.current_limit,
                "proposed_limit": self.proposed_limit,
            },
            "columns": ["Week", "Held back GPU-hours", "Most GPUs held back at once"],
            "rows": [[w.week, f"{w.held_gpu_hours:.1f}", str(w.peak_gpus)] for w in self.weeks],
        }

    def draft(self, saved: dict) -> dict:
        return quota_draft(saved, self.flavor, {"lending_limit": str(self.proposed_limit)})


def raise_lending_limits(
    queues: list[LendingQueue], held: dict[tuple[str, str], list[HeldWeek]]
) -> list[LendingLimitSuggestion]:
    """Every raised lending limit the rule proposes; ``held``: (queue, flavor) → its
    weeks, newest first, as ``held_back`` measured them."""
    found = []
    for q in queues:
        weeks = held.get((q.queue, q.flavor), [])
        if len(weeks) < MIN_WEEKS:
            continue
        if any(w.held_gpu_hours < HELD_BACK_AT_LEAST_GPU_HOURS for w in weeks):
            continue
        extra = math.ceil(statistics.median(w.peak_gpus for w in weeks))
        proposed = min(math.floor(q.nominal), math.ceil(q.lending_limit) + extra)
        if proposed <= q.lending_limit:
            continue
        found.append(
            LendingLimitSuggestion(
                q.team,
                q.queue,
                q.flavor,
                q.cohort,
                q.nominal,
                q.lending_limit,
                proposed,
                tuple(weeks),
            )  # fmt: skip
        )
    return found
