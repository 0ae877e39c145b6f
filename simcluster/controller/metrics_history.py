"""Metrics history for backfill: the hook ``GET /simcluster/metrics/history`` and the
OpenMetrics export behind it (the command line is ``simcluster.history_cli``)."""

from __future__ import annotations

import io
from typing import IO, TYPE_CHECKING

from kueuemodel import parse_duration, parse_timestamp
from simcluster.server import errors
from simcluster.server.dispatch import Request, Response

from . import openmetrics, series

if TYPE_CHECKING:
    from .controller import Controller

OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"
DAY_MS = 86_400_000


def export(ctl: Controller, start_ms: int, end_ms: int, step_ms: int, out: IO[str]) -> int:
    """Write the recorded series over ``[start_ms, end_ms]``; returns the number of samples."""
    if step_ms <= 0 or end_ms < start_ms:
        raise ValueError("need step > 0 and from <= to")
    with ctl.lock:
        view = series.snapshot(ctl)
    return openmetrics.write(view, start_ms, end_ms, step_ms, out)


def parse_time(text: str, now_ms: int) -> int:
    """RFC 3339, epoch seconds, ``now`` or ``now-7d``."""
    if text == "now":
        return now_ms
    if text.startswith("now-"):
        return now_ms - parse_duration(_days(text[4:]))
    if text.replace(".", "", 1).isdigit():
        return int(float(text) * 1000)
    return parse_timestamp(text)


def _days(text: str) -> str:
    """Go durations have no days; ``7d`` becomes ``168h``."""
    return f"{int(text[:-1]) * 24}h" if text.endswith("d") else text


def history_route(ctl: Controller):
    def route(request: Request, rest: tuple[str, ...]) -> Response:
        if request.method != "GET" or rest != ("history",):
            raise errors.path_not_found()
        now = ctl.clock.now_ms()
        query = request.query
        try:
            end = parse_time(query.get("to", "now"), now)
            start = parse_time(query.get("from", "now-1d"), now)
            step = parse_duration(query.get("step", "30s"))
            buffer = io.StringIO()
            export(ctl, start, end, step, buffer)
        except ValueError as exc:
            raise errors.bad_request(str(exc)) from exc
        return Response(200, {}, raw=buffer.getvalue().encode(), content_type=OPENMETRICS)

    return route
