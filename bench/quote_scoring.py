"""The job stream of ``bench/quote_accuracy.py`` and how its quotes are scored. Pure.

A stream is seeded and reproducible: arrivals with exponential gaps, each a team, a
template (``train`` runs long, ``eval`` short), GPUs for one pod and a run time; a
few ask for more than any queue could ever get (the ``never`` cases).
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from datetime import datetime

from core.stats import mean, median

TEAMS = ("vision", "nlp")
RUN_S = {"train": (60, 150), "eval": (15, 45)}  # uniform run time per template, seconds
GPUS = (2, 4, 8)
NEVER_GPUS = 8  # per pod, times NEVER_PODS: more than the cohort's 40 GPUs
NEVER_PODS = 6


@dataclass(frozen=True)
class Arrival:
    at_s: float
    team: str
    template: str
    gpus: int
    pods: int
    run_s: int

    @property
    def never(self) -> bool:
        return self.pods == NEVER_PODS


@dataclass
class Outcome:
    """One quote and what then happened to the job it was about."""

    arrival: Arrival
    quoted_at: datetime
    verdict: str
    flavors: dict
    p50: datetime | None
    p90: datetime | None
    naive: datetime | None  # quoted_at + the queue's recent mean wait
    job: str = ""  # the Job's name in the cluster
    started: datetime | None = None  # Kueue's first admission of its Workload
    started_flavors: dict | None = None
    ended: datetime | None = None  # Kueue's Finished condition

    @property
    def expected_start(self) -> datetime | None:
        """When the quote says it starts: at once for ``now``, p50 for ``later``."""
        return self.quoted_at if self.verdict == "now" else self.p50


def stream(jobs: int, seed: int, mean_gap_s: float, never_every: int) -> list[Arrival]:
    """``jobs`` arrivals; every ``never_every``-th asks for too much."""
    rng = random.Random(seed)
    at, out = 0.0, []
    for i in range(jobs):
        template = rng.choice(sorted(RUN_S))
        low, high = RUN_S[template]
        never = never_every and i % never_every == never_every - 1
        out.append(
            Arrival(
                at_s=round(at, 1),
                team=rng.choice(TEAMS),
                template=template,
                gpus=NEVER_GPUS if never else rng.choice(GPUS),
                pods=NEVER_PODS if never else 1,
                run_s=rng.randint(low, high),
            )
        )
        at += rng.expovariate(1 / mean_gap_s)
    return out


def naive_wait_s(
    waits: list[tuple[datetime, float]], at: datetime, window_s: float
) -> float | None:
    """The mean wait (seconds) of the jobs that started within ``window_s`` before ``at``;
    ``waits``: (start, wait) of the queue's jobs. None: nobody started in the window."""
    recent = [w for started, w in waits if 0 <= (at - started).total_seconds() <= window_s]
    return mean(recent)


def verdict_right(outcome: Outcome, now_within_s: float) -> bool | None:
    """``now``: admitted within ``now_within_s`` of the quote, on the quoted flavors;
    ``never``: never admitted. None for ``later``, which has no such promise."""
    if outcome.verdict == "never":
        return outcome.started is None
    if outcome.verdict != "now":
        return None
    if outcome.started is None:
        return False
    soon = (outcome.started - outcome.quoted_at).total_seconds() <= now_within_s
    return soon and outcome.started_flavors == outcome.flavors


def raced(outcome: Outcome, outcomes: list[Outcome], slack_s: float = 2.0) -> bool:
    """Whether another job ended between ``slack_s`` before the quote and ``slack_s``
    after its job's admission (or the quote, if never admitted): the cluster the quote
    read changed before Kueue placed the job."""
    last = outcome.started or outcome.quoted_at
    return any(
        other.ended
        and -slack_s <= (other.ended - outcome.quoted_at).total_seconds()
        and (other.ended - last).total_seconds() <= slack_s
        for other in outcomes
        if other is not outcome
    )


def errors_s(outcomes: list[Outcome]) -> tuple[list[float], list[float]]:
    """Absolute errors (seconds) of the quote's start (``expected_start``) and of the naive
    answer, over the quotes that have both and whose job started."""
    ours, naive = [], []
    for out in outcomes:
        if out.expected_start and out.naive and out.started:
            ours.append(abs((out.started - out.expected_start).total_seconds()))
            naive.append(abs((out.started - out.naive).total_seconds()))
    return ours, naive


def before_p90(outcomes: list[Outcome]) -> tuple[int, int]:
    """(starts at or before p90, quotes with a p90 whose job started)."""
    scored = [o for o in outcomes if o.p90 and o.started]
    return sum(o.started <= o.p90 for o in scored), len(scored)


def summary(outcomes: list[Outcome], now_within_s: float) -> list[str]:
    """The report's lines for one cluster."""
    lines = []
    for kind in ("now", "never", "later"):
        mine = [o for o in outcomes if o.verdict == kind]
        rights = [verdict_right(o, now_within_s) for o in mine]
        started = sum(o.started is not None for o in mine)
        right = "" if kind == "later" else f", right {sum(bool(r) for r in rights)} of {len(mine)}"
        lines.append(f"{kind}: {len(mine)} quotes{right}; {started} started")
        wrong = [o for o, r in zip(mine, rights, strict=True) if r is False]
        if wrong:
            moved = sum(raced(o, outcomes) for o in wrong)
            lines.append(f"  of the {len(wrong)} wrong, {moved} with another job ending meanwhile")
    later = [o for o in outcomes if o.verdict == "later"]
    with_p50 = sum(o.p50 is not None for o in later)
    lines.append(f"later with a p50: {with_p50} of {len(later)}")
    for label, group in (("later", later), ("all quotes", outcomes)):
        ours, naive = errors_s(group)
        if ours:
            lines.append(
                f"{label}: median |start - p50| {median(ours):.1f} s against the naive "
                f"{median(naive):.1f} s (n={len(ours)})"
            )
    hit, scored = before_p90(later)
    if scored:
        lines.append(
            f"later: started at or before p90 {hit} of {scored} ({100 * hit / scored:.0f} %)"
        )
    lines += _p90_misses(later, outcomes)
    half = [o for o in later if o.quoted_at >= outcomes[len(outcomes) // 2].quoted_at]
    ours, naive = errors_s(half)
    hit, scored = before_p90(half)
    if ours and scored:
        lines.append(
            f"later, second half of the stream: median |start - p50| {median(ours):.1f} s "
            f"against the naive {median(naive):.1f} s (n={len(ours)}); at or before p90 "
            f"{hit} of {scored} ({100 * hit / scored:.0f} %)"
        )
    return lines


def overtaken(outcome: Outcome, outcomes: list[Outcome], *, same_team: bool = False) -> int:
    """How many jobs quoted after ``outcome`` started before it (the quote cannot know
    of arrivals after it); ``same_team``: only those of its team's queue."""
    return sum(
        1
        for other in outcomes
        if other.quoted_at > outcome.quoted_at
        and other.started
        and outcome.started
        and other.started < outcome.started
        and (not same_team or other.arrival.team == outcome.arrival.team)
    )


def _p90_misses(later: list[Outcome], outcomes: list[Outcome]) -> list[str]:
    missed = [o for o in later if o.p90 and o.started and o.started > o.p90]
    if not missed:
        return []
    late = median([(o.started - o.p90).total_seconds() for o in missed])
    passed = sum(overtaken(o, outcomes) > 0 for o in missed)
    in_queue = sum(overtaken(o, outcomes, same_team=True) > 0 for o in missed)
    return [
        f"later, after p90: {len(missed)}, by a median {late:.1f} s; {passed} of them "
        f"overtaken by a job that arrived after the quote ({in_queue} by one of its own queue)"
    ]


def dumps(outcomes: list[Outcome]) -> str:
    """The outcomes as JSON, to score again without running the stream (``loads``)."""
    return json.dumps([asdict(o) for o in outcomes], default=datetime.isoformat, indent=1)


def loads(text: str) -> list[Outcome]:
    out = []
    for row in json.loads(text):
        when = {k: row.get(k) and datetime.fromisoformat(row[k]) for k in _MOMENTS}
        out.append(Outcome(**{**row, **when, "arrival": Arrival(**row["arrival"])}))
    return out


_MOMENTS = ("quoted_at", "p50", "p90", "naive", "started", "ended")
