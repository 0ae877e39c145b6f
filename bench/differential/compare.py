"""Compare an engine ``Outcome`` with a real one, aspect by aspect (pure functions).

A scenario agrees when (a) the same jobs were ever admitted, (b) each job got the
same flavors at its first admission, (c) the same jobs were preempted for the same
reasons, and (d) at least ``ORDER_THRESHOLD`` of the job pairs were first admitted
in the same order, pairs closer than ``TIE_S`` in real time not counted (a real
cluster adds latency the engine does not have).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from .outcome import Outcome

TIE_S = 2.0
ORDER_THRESHOLD = 0.9
ASPECTS = ("admitted", "flavors", "preempted", "order")


@dataclass
class Comparison:
    """Per-aspect verdicts, the order score and a readable list of differences."""

    admitted: bool
    flavors: bool
    preempted: bool
    order_score: float
    order_pairs: int
    diff: list[str] = field(default_factory=list)

    @property
    def order(self) -> bool:
        return self.order_score >= ORDER_THRESHOLD

    @property
    def agrees(self) -> bool:
        return self.admitted and self.flavors and self.preempted and self.order

    def aspects(self) -> dict[str, bool]:
        return {aspect: getattr(self, aspect) for aspect in ASPECTS}


def compare(engine: Outcome, real: Outcome) -> Comparison:
    """How far ``engine`` agrees with ``real`` (the reference).

    When the real run stopped early, what the engine did after that is not compared.
    """
    diff: list[str] = []
    engine = engine.until(real.horizon())
    admitted = _compare_admitted(engine, real, diff)
    flavors = _compare_flavors(engine, real, diff)
    preempted = _compare_preempted(engine, real, diff)
    score, pairs = order_agreement(engine, real, diff)
    if not real.complete:
        diff.append("real run hit its deadline before every job finished")
    return Comparison(admitted, flavors, preempted, score, pairs, diff)


def _admitted(outcome: Outcome) -> set[str]:
    return {name for name, job in outcome.jobs.items() if job.admitted}


def _compare_admitted(engine: Outcome, real: Outcome, diff: list[str]) -> bool:
    only_engine, only_real = (
        _admitted(engine) - _admitted(real),
        _admitted(real) - _admitted(engine),
    )
    for name in sorted(only_engine):
        diff.append(f"admitted: {name} admitted by the engine only")
    for name in sorted(only_real):
        diff.append(f"admitted: {name} admitted by Kueue only")
    return not (only_engine or only_real)


def _compare_flavors(engine: Outcome, real: Outcome, diff: list[str]) -> bool:
    same = True
    for name in sorted(_admitted(engine) & _admitted(real)):
        ours, theirs = engine.jobs[name].flavors, real.jobs[name].flavors
        if ours != theirs:
            same = False
            diff.append(f"flavors: {name} engine {ours} vs Kueue {theirs}")
    return same


def preempted_reasons(outcome: Outcome) -> dict[str, set[str]]:
    """Preempted job -> the set of its preemption reasons."""
    return {
        name: {p.reason for p in job.preemptions}
        for name, job in outcome.jobs.items()
        if job.preemptions
    }


def _compare_preempted(engine: Outcome, real: Outcome, diff: list[str]) -> bool:
    ours, theirs = preempted_reasons(engine), preempted_reasons(real)
    for name in sorted(ours.keys() | theirs.keys()):
        if ours.get(name) != theirs.get(name):
            diff.append(
                f"preempted: {name} engine {_describe(engine, name)} vs Kueue {_describe(real, name)}"
            )
    return ours == theirs


def _describe(outcome: Outcome, name: str) -> str:
    preemptions = outcome.jobs[name].preemptions
    if not preemptions:
        return "never preempted"
    parts = [f"{p.reason} by {p.preemptor or '?'} at {p.at_s:g}s" for p in preemptions]
    return "[" + "; ".join(parts) + "]"


def order_agreement(
    engine: Outcome, real: Outcome, diff: list[str] | None = None
) -> tuple[float, int]:
    """Fraction of job pairs first admitted in the same order, and how many pairs counted.

    Only jobs admitted in both runs count; a pair less than ``TIE_S`` apart in the
    real run is a tie and does not count; a pair the engine admitted at the same
    instant but Kueue did not counts as disagreeing.
    """
    both = sorted(_admitted(engine) & _admitted(real))
    agree = pairs = 0
    for a, b in combinations(both, 2):
        real_gap = real.jobs[b].first_admit_s - real.jobs[a].first_admit_s
        if abs(real_gap) < TIE_S:
            continue
        pairs += 1
        engine_gap = engine.jobs[b].first_admit_s - engine.jobs[a].first_admit_s
        if engine_gap * real_gap > 0:
            agree += 1
        elif diff is not None:
            first, second = (a, b) if real_gap > 0 else (b, a)
            diff.append(f"order: Kueue admitted {first} before {second}, the engine did not")
    return (agree / pairs if pairs else 1.0), pairs


def timeline(engine: Outcome, real: Outcome) -> list[str]:
    """Both runs side by side, one line per job, for a disagreement's report."""
    lines = [f"{'job':5} {'engine admit/flavor/finish':32} {'Kueue admit/flavor/finish':32}"]
    for name in sorted(real.jobs):
        lines.append(f"{name:5} {_row(engine, name):32} {_row(real, name):32}")
    return lines


def _row(outcome: Outcome, name: str) -> str:
    job = outcome.jobs.get(name)
    if job is None or not job.admitted:
        return "never admitted"
    finished = f"{job.finished_s:g}" if job.finished_s is not None else "-"
    extra = f" x{job.admissions}" if job.admissions > 1 else ""
    return f"{job.first_admit_s:g} {','.join(job.flavors)} {finished}{extra}"
