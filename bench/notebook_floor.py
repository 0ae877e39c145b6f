"""Notebook status GET beside its floor, in one run on one gunicorn.

The floor is a bare DRF endpoint (bench/floor_urls.py): token authentication, the default
permission and throttles, an empty answer. Both are served by the deployed gunicorn
configuration (``-c python:portal.gunicorn``, 2 workers) on loopback and loaded by the same
asyncio keep-alive client in alternating rounds, so a neighbour's load falls on both alike;
the ratio is what to compare between machines. Targets (#17): the notebook GET at least
50% of the floor's throughput, its p99 at most 2× the floor's.

Needs PostgreSQL and Redis; uses (and recreates) its own scratch database:
``.venv/bin/python bench/notebook_floor.py [--seconds 5] [--rounds 4] [--concurrency 16]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import notebook_api as nb  # noqa: E402 (the cluster, data and load client of that benchmark)

nb.BENCH_DB = "qm_bench_floor"
FLOOR = "/bench/floor/"


def _serve(env: dict, port: int) -> subprocess.Popen:
    argv = [sys.executable, "-m", "gunicorn", "portal.wsgi", "-c", "python:portal.gunicorn"]
    argv += ["-w", "2", "-b", f"127.0.0.1:{port}", "--log-level", "warning"]
    process = subprocess.Popen(argv, cwd=nb.ROOT, env=env)
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return process
        except OSError:
            if time.monotonic() > deadline:
                process.terminate()
                raise SystemExit("gunicorn did not start") from None
            time.sleep(0.2)


def _call(port: int, token: str, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode() if body is not None else None,
        method=method,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    return json.loads(urllib.request.urlopen(request).read())


def _measure(port: int, token: str, paths: dict, args) -> dict:
    results = {name: {"latencies": [], "wall": 0.0, "errors": 0, "cpu": 0.0} for name in paths}
    for _ in range(args.rounds):
        for name, path in paths.items():
            before = nb._cpu_seconds(os.getpid())
            latencies, errors, wall = asyncio.run(
                nb._get_load(port, token, path, args.seconds, args.concurrency)
            )
            after = nb._cpu_seconds(os.getpid())
            entry = results[name]
            entry["latencies"] += latencies
            entry["wall"] += wall
            entry["errors"] += errors
            entry["others"] = entry.get("others", 0.0) + max(
                0.0, after["machine"] - before["machine"] - (after["bench"] - before["bench"])
            )
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="qm-bench-floor-"))
    cluster, _sim_url, env = nb._set_up(workdir)
    token = nb._populate()["token"]
    port = nb._free_port()
    web = _serve({**env, "DJANGO_SETTINGS_MODULE": "bench.floor_settings"}, port)
    try:
        notebook = _call(
            port,
            token,
            "POST",
            "/api/v1/notebooks/",
            {"image": nb.IMAGE, "gpus": 1, "flavor": "h100"},
        )
        paths = {"notebook GET": f"/api/v1/notebooks/{notebook['id']}/", "floor": FLOOR}
        for path in paths.values():  # warm-up
            asyncio.run(nb._get_load(port, token, path, 2, 4))
        results = _measure(port, token, paths, args)
    finally:
        web.terminate()
        web.wait(timeout=30)
        cluster.terminate()
        cluster.wait(timeout=20)
    print(_report(results, args))
    return 0


def _report(results: dict, args) -> str:
    lines = [
        f"{args.concurrency} connections, {args.rounds} alternating rounds of {args.seconds:g} s "
        f"each; load average {os.getloadavg()[0]:.2f}"
    ]
    figures = {}
    for name, entry in results.items():
        latencies = entry["latencies"]
        rps, p99 = len(latencies) / entry["wall"], nb._pct(latencies, 0.99) * 1000
        figures[name] = (rps, p99)
        lines.append(
            f"- {name}: **{rps:.0f} req/s**, p50 {nb._pct(latencies, 0.5) * 1000:.1f} ms, "
            f"p99 {p99:.1f} ms, {entry['errors']} errors ({len(latencies)} requests); other "
            f"processes used {entry['others'] / entry['wall']:.2f} of the 2 cores meanwhile"
        )
    (nb_rps, nb_p99), (floor_rps, floor_p99) = figures["notebook GET"], figures["floor"]
    lines.append(
        f"- ratio: throughput **{nb_rps / floor_rps:.0%}** of the floor (target ≥ 50%), "
        f"p99 **{nb_p99 / floor_p99:.2f}×** the floor's (target ≤ 2×)"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
