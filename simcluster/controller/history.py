"""Metrics history for backfill: the hook ``GET /simcluster/metrics/history`` and the CLI.

``python -m simcluster metrics-history -o FILE [--from T] [--to T] [--step 30s]``
either asks a running server (``--url``) or builds a demo history in-process
(``--demo-days N [--seed S]``), then writes OpenMetrics for
``promtool tsdb create-blocks-from openmetrics``.
"""

from __future__ import annotations

import argparse
import io
import sys
import urllib.parse
import urllib.request
from pathlib import Path
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m simcluster metrics-history", description=__doc__.splitlines()[0]
    )
    parser.add_argument("-o", "--output", required=True, help="OpenMetrics file to write")
    parser.add_argument(
        "--from",
        dest="start",
        help="RFC 3339, epoch seconds or now-7d (default: start of the history)",
    )
    parser.add_argument(
        "--to", dest="end", help="RFC 3339, epoch seconds or now (default: end of the history)"
    )
    parser.add_argument("--step", default="30s", help="sample spacing (default 30s)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--url", help="a running simcluster server")
    source.add_argument(
        "--demo-days", type=float, help="generate a demo history of this many days in-process"
    )
    parser.add_argument("--seed", type=int, default=1, help="demo generator seed")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.url:
        return _from_server(args)
    return _from_demo(args)


def _from_server(args: argparse.Namespace) -> int:
    query = {"step": args.step, "from": args.start or "now-7d", "to": args.end or "now"}
    url = f"{args.url.rstrip('/')}/simcluster/metrics/history?{urllib.parse.urlencode(query)}"
    with urllib.request.urlopen(url, timeout=600) as response, open(args.output, "wb") as out:
        while chunk := response.read(1 << 20):
            out.write(chunk)
    return 0


def _from_demo(args: argparse.Namespace) -> int:
    from simcluster.controller import attach
    from simcluster.controller.clock import wall_ms
    from simcluster.demo import seed_history
    from simcluster.server import SimServer

    end_default = (wall_ms() - 60_000) // 1000 * 1000
    start_default = end_default - int(args.demo_days * DAY_MS)
    server = SimServer()
    ctl = attach(server, "virtual", start_ms=start_default, run=False)
    seed_history(ctl, args.demo_days, seed=args.seed)
    start = parse_time(args.start, end_default) if args.start else start_default
    end = parse_time(args.end, end_default) if args.end else end_default
    with open(args.output, "w", encoding="utf-8", newline="\n") as out:
        samples = export(ctl, start, end, parse_duration(args.step), out)
    print(f"wrote {samples} samples to {Path(args.output)}", file=sys.stderr)
    return 0
