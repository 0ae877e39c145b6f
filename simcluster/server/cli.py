"""``python -m simcluster serve``: run the simulated API server until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from simcluster.server.app import SimServer


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m simcluster serve", description=__doc__)
    parser.add_argument("--port", type=int, required=True, help="TCP port; 0 picks a free one")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument("--kubeconfig-out", required=True, help="where to write the kubeconfig")
    parser.add_argument(
        "--snapshot", help="JSON state file: loaded at start, saved periodically and on exit"
    )
    parser.add_argument(
        "--snapshot-interval", type=float, default=30.0, help="seconds between saves"
    )
    parser.add_argument("--token", help="bearer token written to the kubeconfig (default: random)")
    parser.add_argument(
        "--bookmark-interval", type=float, default=10.0, help="idle seconds between watch bookmarks"
    )
    parser.add_argument(
        "--require-token",
        action="store_true",
        help="reject API requests without the token (kubectl never sends tokens over http)",
    )
    parser.add_argument("--log-level", default="WARNING")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    server = SimServer(
        args.host,
        args.port,
        token=args.token,
        require_token=args.require_token,
        kubeconfig_out=args.kubeconfig_out,
        snapshot_path=args.snapshot,
        snapshot_interval=args.snapshot_interval,
        bookmark_interval=args.bookmark_interval,
    )
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    server.start()
    print(f"simcluster listening on {server.url}", flush=True)
    # The main thread only waits: shutdown() must not run on the serving thread.
    while not done.wait(0.5):
        pass
    server.stop()
    print("simcluster stopped", file=sys.stderr, flush=True)
    return 0
