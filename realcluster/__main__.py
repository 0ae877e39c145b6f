"""``python -m realcluster build|up|down|status``.

``up`` starts the control plane in the foreground (Ctrl-C stops it) and prints the
kubeconfig path; with ``--nodes`` it registers fake GPU nodes, e.g.
``--nodes h100=4x8`` is four nodes with 8 ``nvidia.com/gpu`` each, labelled
``quartermaster.io/flavor=h100``; ``--nodes-file`` takes Node manifests (YAML), which
become KWOK nodes as they are.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
import time
from pathlib import Path

import yaml

from realcluster import build_info, nodes
from realcluster.controlplane import ControlPlane, stop_from_state
from realcluster.processes import StartupError

DEFAULT_WORKDIR = Path("var/realcluster")
NODE_SPEC = re.compile(r"^([a-z0-9][a-z0-9-]*)=(\d{1,3})x(\d{1,3})$")


def _node_spec(text: str) -> tuple[str, int, int]:
    match = NODE_SPEC.match(text)
    if not match:
        raise argparse.ArgumentTypeError(
            f"--nodes takes FLAVOR=COUNTxGPUS (e.g. h100=4x8), not {text!r}"
        )
    return match.group(1), int(match.group(2)), int(match.group(3))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m realcluster", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("build", help="build the binaries once per version set")
    up = commands.add_parser("up", help="start the control plane (foreground)")
    up.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    up.add_argument("--fair-sharing", action="store_true", help="Kueue's fair sharing on")
    up.add_argument(
        "--admission-fair-sharing",
        action="store_true",
        help="Kueue's admissionFairSharing block (fairness between LocalQueues of one queue)",
    )
    up.add_argument("--nodes", type=_node_spec, action="append", default=[])
    up.add_argument("--nodes-file", type=Path, help="Node manifests (YAML) to register")
    up.add_argument("--demo-nodes", action="store_true", help="the demo cluster's GPU nodes")
    down = commands.add_parser("down", help="stop a control plane started by `up`")
    down.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    commands.add_parser("status", help="print the pinned versions and whether they are built")
    return parser


def _up(args: argparse.Namespace) -> int:
    plane = ControlPlane(
        args.workdir,
        fair_sharing=args.fair_sharing,
        admission_fair_sharing=args.admission_fair_sharing,
    )
    try:
        plane.up()
    except StartupError as exc:
        print(f"realcluster: {exc}", file=sys.stderr)
        return 1
    fake = [
        nodes.gpu_node(
            f"{flavor}-{i}",
            labels={"quartermaster.io/flavor": flavor},
            resources={"nvidia.com/gpu": str(gpus)},
        )
        for flavor, count, gpus in args.nodes
        for i in range(count)
    ]
    if args.nodes_file:
        fake += [
            nodes.as_kwok_node(n) for n in yaml.safe_load_all(args.nodes_file.read_text()) if n
        ]
    if args.demo_nodes:
        from simcluster.demo import demo_objects, nodes_for

        fake += [nodes.as_kwok_node(n) for n in nodes_for(demo_objects())]
    if fake:
        plane.apply(fake)
    print(f"realcluster up in {plane.startup_seconds:.1f}s: {plane.server}", flush=True)
    print(f"kubectl --kubeconfig {plane.kubeconfig.resolve()} get nodes", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while all(c.alive() for c in plane.components):
            time.sleep(1)
        dead = [c.name for c in plane.components if not c.alive()]
        print(f"realcluster: {', '.join(dead)} exited; stopping", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        # A second Ctrl-C or TERM must not cut the orderly shutdown short.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        plane.down()


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "build":
        print(build_info.ensure_built())
        return 0
    if args.command == "status":
        built = "built" if build_info.is_built() else "not built"
        print(f"{build_info.versions()} → {build_info.install_dir()} ({built})")
        return 0
    if args.command == "down":
        return 0 if stop_from_state(args.workdir) else 1
    return _up(args)


if __name__ == "__main__":
    sys.exit(main())
