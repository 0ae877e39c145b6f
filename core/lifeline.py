"""Pure: one workload's life as a timeline (queued → admitted → evicted → re-admitted →
finished), drawn by static/js/charts.js on job, notebook and workload pages.

Callers turn what they recorded (a job's events, a notebook's times, the recorder's
transitions) into ``Step``s of the kinds below; this module decides the segments and
builds the Plotly figure. Times are shown in UTC and say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from core.charts import axis, empty_unless_drawn

QUEUED, ADMITTED, EVICTED, REQUEUED = "queued", "admitted", "evicted", "requeued"
FINISHED, ENDED = "finished", "ended"  # ended: cancelled, stopped or deleted, not finished

# Segment names, in the order of the picture's rows (top to bottom).
WAITING_FIRST, RUNNING_FIRST = "queued", "admitted"
WAITING_AGAIN, RUNNING_AGAIN = "evicted, waiting", "re-admitted"
ROWS = (WAITING_FIRST, RUNNING_FIRST, WAITING_AGAIN, RUNNING_AGAIN)
PATTERNS = {WAITING_FIRST: ".", RUNNING_FIRST: "", WAITING_AGAIN: "x", RUNNING_AGAIN: "/"}


@dataclass(frozen=True)
class Step:
    kind: str
    at: datetime


@dataclass(frozen=True)
class Segment:
    name: str
    start: datetime
    end: datetime
    still: bool = False  # open at ``now``: the workload is still in it


@dataclass(frozen=True)
class Lifeline:
    segments: list[Segment]
    end: Step | None  # the finish (or end) marker, if it came


def lifeline(steps: list[Step], now: datetime) -> Lifeline:
    """Segments from the steps in time order: a wait opens when queued or evicted and
    closes at admission; a run opens at admission and closes at eviction or the end.
    A repeated step (a preemption and its eviction at one time) changes nothing."""
    segments: list[Segment] = []
    open_name, open_at, admitted_before = None, None, False
    for step in sorted(steps, key=lambda s: s.at):
        name = _next_segment(step.kind, open_name, admitted_before)
        if name == open_name and step.kind not in (FINISHED, ENDED):
            continue
        if open_name is not None:
            segments.append(Segment(open_name, open_at, step.at))
        if step.kind in (FINISHED, ENDED):
            return Lifeline(segments, step)
        admitted_before = admitted_before or step.kind == ADMITTED
        open_name, open_at = name, step.at
    if open_name is not None:
        segments.append(Segment(open_name, open_at, max(now, open_at), still=True))
    return Lifeline(segments, None)


def _next_segment(kind: str, open_name: str | None, admitted_before: bool) -> str | None:
    if kind == QUEUED:
        return open_name or WAITING_FIRST
    if kind == ADMITTED:
        running = open_name in (RUNNING_FIRST, RUNNING_AGAIN)
        return open_name if running else (RUNNING_AGAIN if admitted_before else RUNNING_FIRST)
    if kind in (EVICTED, REQUEUED):
        return WAITING_AGAIN if open_name in (RUNNING_FIRST, RUNNING_AGAIN, None) else open_name
    return None


def utc_text(at: datetime) -> str:
    """``2026-01-05 10:05:00 UTC``: what the hover and the end marker say."""
    return f"{at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


def _plotly_time(at: datetime) -> str:
    # plotly.js reads dates without a zone as they are: the axis is UTC and says so.
    return f"{at.astimezone(UTC):%Y-%m-%d %H:%M:%S}"


def figure(line: Lifeline) -> dict:
    """A Gantt-like picture: a row per kind of segment, bars from start to end on a UTC
    time axis, each bar labelled and patterned so it reads without colour."""
    data = []
    for name in ROWS:
        mine = [s for s in line.segments if s.name == name]
        if mine:
            data.append(_segment_trace(name, mine))
    if line.end is not None:
        text = f"{line.end.kind} {utc_text(line.end.at)}"
        data.append(
            {"type": "scatter", "mode": "markers+text", "name": line.end.kind,
             "x": [_plotly_time(line.end.at)], "y": [line.end.kind], "text": [text],
             "textposition": "middle left", "marker": {"symbol": "x-thin-open", "size": 14,
             "line": {"width": 3}}, "hovertemplate": text + "<extra></extra>"}
        )  # fmt: skip
    rows = len(data)
    layout = {
        "xaxis": axis("time (UTC)", type="date"),
        "yaxis": axis("phase", type="category", autorange="reversed", automargin=True),
        "margin": {"t": 30},
        "height": 120 + 50 * rows,
        "showlegend": True,
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
    }
    return empty_unless_drawn({"data": data, "layout": layout}, "Nothing recorded yet.")


def _segment_trace(name: str, segments: list[Segment]) -> dict:
    def words(s: Segment) -> str:
        until = "still now" if s.still else utc_text(s.end)
        return f"{name}: {utc_text(s.start)} → {until}"

    return {
        "type": "bar",
        "orientation": "h",
        "name": name,
        "y": [name for _ in segments],
        "base": [_plotly_time(s.start) for s in segments],
        # A bar's length on a date axis is in milliseconds.
        "x": [(s.end - s.start).total_seconds() * 1000 for s in segments],
        "text": [name for _ in segments],
        "textposition": "inside",
        "insidetextanchor": "middle",
        "hovertext": [words(s) for s in segments],
        "hoverinfo": "text",
        "marker": {"pattern": {"shape": PATTERNS[name]}, "line": {"width": 1}},
    }
