"""Wait times and starvation.

A wait counts in the week its admission falls in (Kueue observes its histogram at
admission too). Each requeue starts a new wait. Groups: the whole cluster, and
per team, queue, priority tier and job-size class.

A wait that overlaps recorder downtime which Kueue's Events did not cover is not
counted anywhere: its start or end may be a step the history never saw (an
evict → re-admit cycle inside the downtime reads as one long wait). Such waits
are only counted per downtime, in ``downtime_rows``, for the report's gaps.
"""

from __future__ import annotations

from collections import defaultdict

from apps.reports.compute.records import Downtime, Wait, WeekInput
from apps.reports.compute.stats import summarize


def _overlaps(w: Wait, down: Downtime, horizon: float) -> bool:
    end = max(horizon, w.start) if w.end is None else w.end
    return w.start < down.end and down.start < end


def counted_waits(week: WeekInput) -> list[Wait]:
    """The waits the history knows for sure (none touching unrebuilt downtime)."""
    unknown = [d for d in week.downtime if not d.rebuilt]
    if not unknown:
        return week.waits
    return [w for w in week.waits if not any(_overlaps(w, d, week.horizon) for d in unknown)]


def downtime_rows(week: WeekInput) -> list[dict]:
    """Recorder downtime touching the week, with how many of its waits are unknown."""
    rows = []
    for down in sorted(week.downtime, key=lambda d: d.start):
        if down.end <= week.start or down.start >= week.horizon:
            continue
        unknown = 0 if down.rebuilt else sum(_overlaps(w, down, week.horizon) for w in week.waits)
        rows.append({"start": down.start, "end": down.end, "rebuilt": down.rebuilt,
                     "unknown_waits": unknown})  # fmt: skip
    return rows


def completed_waits(week: WeekInput, counted: list[Wait] | None = None) -> list[Wait]:
    lo, hi = week.start, week.horizon
    counted = counted_waits(week) if counted is None else counted
    return [w for w in counted if w.end is not None and lo <= w.end < hi]


def sections(week: WeekInput) -> dict:
    """The report's four wait sections, filtering the week's waits once for all."""
    counted = counted_waits(week)
    completed = completed_waits(week, counted)
    return {
        "waits": wait_table(week, completed),
        "requeue_waits": requeue_table(week, completed),
        "wait_cdf": wait_cdf(week, completed=completed),
        "starvation": starvation(week, counted),
    }


_DIMENSIONS = ("team", "queue", "tier", "size")


def wait_table(week: WeekInput, completed: list[Wait] | None = None) -> list[dict]:
    """One row per (dimension, value), plus ``all``; seconds."""
    everything: list[float] = []
    by: dict[str, dict[str, list[float]]] = {d: defaultdict(list) for d in _DIMENSIONS}
    by_team, by_queue, by_tier, by_size = (by[d] for d in _DIMENSIONS)
    queue_team: dict[str, str] = {}
    # One dict per dimension, not one keyed by (dimension, value): no tuple per wait
    # and dimension (~240,000 waits); ``summarize`` sorts each group's values anyway.
    for w in completed_waits(week) if completed is None else completed:
        seconds = w.end - w.start
        queue_team[w.queue] = w.team
        everything.append(seconds)
        by_team[w.team].append(seconds)
        by_queue[w.queue].append(seconds)
        by_tier[w.tier].append(seconds)
        by_size[w.size].append(seconds)
    groups = {(d, key): values for d, values_of in by.items() for key, values in values_of.items()}
    if everything:
        groups[("all", "")] = everything
    owner = {"team": lambda key: key, "queue": queue_team.get}
    return [
        {
            "dimension": dim,
            "key": key,
            "team": owner.get(dim, lambda _: "")(key) or "",
            **summarize(values),
        }
        for (dim, key), values in sorted(groups.items())
    ]


def requeue_table(week: WeekInput, completed: list[Wait] | None = None) -> list[dict]:
    """Waits after a requeue only, per queue."""
    groups: dict[str, list[float]] = defaultdict(list)
    for w in completed_waits(week) if completed is None else completed:
        if w.kind == "requeue":
            groups[w.queue].append(w.end - w.start)
    return [{"queue": q, **summarize(v)} for q, v in sorted(groups.items())]


def starvation(week: WeekInput, counted: list[Wait] | None = None) -> list[dict]:
    """Per queue: the longest wait that ended this week and the oldest one still open."""
    lo, hi = week.start, week.horizon
    rows: dict[str, dict] = {}
    for w in counted_waits(week) if counted is None else counted:
        row = rows.get(w.queue) or rows.setdefault(w.queue, _empty_starvation(w))
        if w.end is not None and lo <= w.end < hi:
            if w.end - w.start > row["longest_wait"]:
                row.update(longest_wait=w.end - w.start, longest_uid=w.uid)
        elif w.start < hi and (w.end is None or w.end >= hi):
            age = hi - w.start
            if age > row["oldest_pending_age"]:
                row.update(oldest_pending_age=age, oldest_pending_uid=w.uid)
    return [rows[q] for q in sorted(rows)]


def _empty_starvation(w: Wait) -> dict:
    return {
        "queue": w.queue,
        "team": w.team,
        "longest_wait": 0.0,
        "longest_uid": "",
        "oldest_pending_age": 0.0,
        "oldest_pending_uid": "",
    }


def wait_cdf(
    week: WeekInput, points: int = 200, completed: list[Wait] | None = None
) -> dict[str, list[list[float]]]:
    """Per queue: up to ``points`` (wait seconds, cumulative fraction) pairs for the CDF chart."""
    groups: dict[str, list[float]] = defaultdict(list)
    for w in completed_waits(week) if completed is None else completed:
        groups[w.queue].append(w.end - w.start)
    cdf = {}
    for queue, values in sorted(groups.items()):
        values.sort()
        n = len(values)
        stride = max(1, n // points)
        idx = sorted({*range(0, n, stride), n - 1})
        cdf[queue] = [[values[i], (i + 1) / n] for i in idx]
    return cdf
