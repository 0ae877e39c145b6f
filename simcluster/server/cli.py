"""``python -m simcluster serve``: run the simulated API server until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Callable

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
    live = parser.add_argument_group("live controller (simcluster.controller)")
    live.add_argument(
        "--clock",
        choices=("real", "virtual"),
        default="real",
        help="real: tick on the wall clock; virtual: time moves via POST /simcluster/clock/advance",
    )
    live.add_argument("--tick", type=float, default=0.5, help="seconds between real-time ticks")
    live.add_argument(
        "--seed-history",
        type=float,
        metavar="DAYS",
        help="play DAYS of demo history while serving, paced by the Workload watchers",
    )
    live.add_argument(
        "--seed-wait",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long the history waits for Workload watchers before playing on unpaced",
    )
    live.add_argument("--seed", type=int, default=1, help="demo generator seed")
    live.add_argument(
        "--seed-label",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="label the seeded catalogue (Namespaces, Kueue objects), e.g. to mark a portal's ownership",
    )
    live.add_argument(
        "--trickle",
        action="store_true",
        help="keep submitting demo jobs every 20-60 s (real clock; implied by --seed-history)",
    )
    live.add_argument("--prices", help='JSON file of $/GPU-hour by GPU class, e.g. {"h100": 4.0}')
    live.add_argument(
        "--fair-sharing",
        action="store_true",
        help="run Kueue with fair sharing on (a Configuration with a fairSharing block, "
        "Kueue's default preemption strategies)",
    )
    live.add_argument(
        "--admission-fair-sharing",
        action="store_true",
        help="run Kueue with AdmissionFairSharing configured (realcluster's opt-in block: "
        "1m half-life, 2 s samples, a GPU weighs 100, a CPU 1, memory 0)",
    )
    live.add_argument("--no-controller", action="store_true", help="serve the API only")
    return parser


ADMISSION_FAIR_SHARING = {
    "usageHalfLifeTime": "1m",
    "usageSamplingInterval": "2s",
    "resourceWeights": {"nvidia.com/gpu": 100.0, "cpu": 1.0, "memory": 0.0},
}
"""The same block as realcluster's ``--admission-fair-sharing`` (a test keeps them equal)."""


def kueue_config(args: argparse.Namespace) -> dict | None:
    """The Kueue Configuration the flags ask for (None: Kueue's defaults)."""
    if not (args.fair_sharing or args.admission_fair_sharing):
        return None
    config: dict = {"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration"}
    if args.fair_sharing:
        config["fairSharing"] = {}
    if args.admission_fair_sharing:
        config["admissionFairSharing"] = ADMISSION_FAIR_SHARING
    return config


def start_controller(server: SimServer, args: argparse.Namespace) -> Callable[[], None]:
    """Attach the live controller; returns what to run once the server listens.

    With --seed-history that is the demo week, played behind the API (``LiveSeed``);
    the wall clock and the trickle of new jobs take over when it is done."""
    from simcluster.controller import attach
    from simcluster.controller.catalog import load_prices
    from simcluster.controller.clock import wall_ms
    from simcluster.demo import DAY_MS, Trickle, demo_objects
    from simcluster.live_seed import LiveSeed

    prices, config = load_prices(args.prices), kueue_config(args)

    def trickle() -> None:
        if args.clock == "real" and (args.trickle or args.seed_history):
            started = Trickle(server.controller, seed=args.seed + 1).start()
            server.on_stop.insert(0, started.stop)

    if not args.seed_history:
        attach(server, args.clock, tick=args.tick, prices=prices, kueue_config=config)
        trickle()
        return lambda: None
    now = wall_ms()
    ctl = attach(
        server,
        "virtual",
        start_ms=now - int(args.seed_history * DAY_MS),
        prices=prices,
        run=False,
        kueue_config=config,
    )

    def week_done() -> None:
        if args.clock == "real":
            ctl.clock.switch_to_real()
        ctl.start(args.tick if args.clock == "real" else 0.05)
        trickle()

    labels = dict(item.split("=", 1) for item in args.seed_label)
    seed = LiveSeed(
        ctl, args.seed_history, seed=args.seed, objects=demo_objects(labels=labels),
        until_ms=now // 1000 * 1000, on_done=week_done, wait_seconds=args.seed_wait,
    )  # fmt: skip
    server.on_stop.insert(0, seed.stop)
    return seed.start


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
    after_start = start_controller(server, args) if not args.no_controller else lambda: None
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    server.start()
    print(f"simcluster listening on {server.url}", flush=True)
    after_start()
    # The main thread only waits: shutdown() must not run on the serving thread.
    while not done.wait(0.5):
        pass
    server.stop()
    print("simcluster stopped", file=sys.stderr, flush=True)
    return 0
