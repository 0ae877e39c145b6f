"""Command-line entry point: ``python -m simcluster {serve,run,metrics-history} ...``."""

from __future__ import annotations

import sys

USAGE = "usage: python -m simcluster {serve,run,metrics-history} [options]"


def _run(argv: list[str]) -> int:
    # The engine is only needed for this command; import it only when asked for.
    from kueuemodel import scenario_main

    return int(scenario_main(argv) or 0)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "serve":
        from simcluster.server.cli import main as serve

        return serve(rest)
    if command == "run":
        return _run(rest)
    if command == "metrics-history":
        from simcluster.history_cli import main as history

        return history(rest)
    print(f"unknown command {command!r}\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
