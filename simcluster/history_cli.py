"""``python -m simcluster metrics-history -o FILE [--from T] [--to T] [--step 30s]``.

Either asks a running server (``--url``) or builds a demo history in-process
(``--demo-days N [--seed S]``), then writes OpenMetrics for
``promtool tsdb create-blocks-from openmetrics``.
"""

from __future__ import annotations

import argparse
import sys
import urllib.parse
import urllib.request
from pathlib import Path

from kueuemodel import parse_duration
from simcluster.controller import attach
from simcluster.controller.clock import wall_ms
from simcluster.controller.metrics_history import DAY_MS, export, parse_time
from simcluster.demo import seed_history
from simcluster.server import SimServer


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
