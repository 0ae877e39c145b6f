"""`make run`: the whole portal on the embedded default, in one terminal.

Starts the simulated Kubernetes cluster (unless ``QM_CLUSTER_SYNC=false``), the
web server and a Celery worker with embedded beat (filesystem broker, no Redis),
prints the URL, demo logins and the kubectl command, and stops everything on Ctrl-C.
``QM_CLUSTER=real`` starts the real control plane from ``realcluster/`` instead (the
real Kueue on KWOK nodes; no generated week). The portal is always pointed at the
cluster started here, never at whatever ``KUBECONFIG`` the shell has, so a demo never
writes to a cluster someone else runs.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from portal import demo_prometheus
from portal.env import env_bool, env_choice

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
KUBECONFIG = ROOT / "var" / "kubeconfig"
REAL_WORKDIR = ROOT / "var" / "realcluster"
PREFERRED_SIM_PORT = 6443
DEMO_DAYS = 7
MANAGED_BY = "app.kubernetes.io/managed-by"


# Set once the launcher knows them (e.g. PROMETHEUS_URL), passed to every child.
_EXTRA_ENV: dict[str, str] = {}


def _env() -> dict[str, str]:
    env = {**os.environ, **_EXTRA_ENV}
    env.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    env.setdefault("QM_ENV", "dev")
    # The demo's idle notebook is warned, then culled, within minutes of the start.
    env.setdefault("QM_CULL_INTERVAL_SECONDS", "60")
    # The demo's Kueue runs with fair sharing (see _start_cluster), so weights matter.
    env.setdefault("QM_KUEUE_FAIR_SHARING", "true")
    env["PYTHONUNBUFFERED"] = "1"
    if env_bool("QM_CLUSTER_SYNC", True):
        env["KUBECONFIG"] = str(_kubeconfig())
    return env


def _real() -> bool:
    return env_choice("QM_CLUSTER", ("sim", "real"), "sim") == "real"


def _kubeconfig() -> Path:
    return REAL_WORKDIR / "kubeconfig" if _real() else KUBECONFIG


def _manage(*args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=_env(), check=True)


def _start(name: str, argv: list[str]) -> subprocess.Popen:
    print(f"starting {name}: {' '.join(argv)}", flush=True)
    # Own process group, so Ctrl-C in the terminal reaches us first and we stop
    # the children in order instead of racing them.
    return subprocess.Popen(argv, cwd=ROOT, env=_env(), start_new_session=True)


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()  # the leader shuts its own children down cleanly
    deadline = time.monotonic() + 15
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def _free_port() -> int:
    """6443 like a real API server when it is free, otherwise any free port."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", PREFERRED_SIM_PORT))
            return PREFERRED_SIM_PORT
        except OSError:
            return 0


def _start_cluster(first_start: bool) -> tuple[subprocess.Popen, str]:
    snapshot = ROOT / "var" / "simcluster.json"
    argv = [PYTHON, "-m", "simcluster", "serve", "--port", str(_free_port())]
    argv += ["--kubeconfig-out", str(KUBECONFIG), "--snapshot", str(snapshot)]
    if env_bool("QM_KUEUE_FAIR_SHARING", True):
        argv += ["--fair-sharing"]  # what the portal's settings say the cluster's Kueue does
    if first_start:
        # First start: the engine replays a generated week in virtual time, labelled
        # as ours so the portal adopts the demo queues; later starts resume the snapshot.
        argv += ["--seed-history", str(DEMO_DAYS), "--seed-label", f"{MANAGED_BY}=quartermaster"]
        print(f"generating {DEMO_DAYS} days of demo history (about half a minute)…", flush=True)
    else:
        argv += ["--trickle"]
    print(f"starting simulated cluster: {' '.join(argv)}", flush=True)
    process = subprocess.Popen(
        argv, cwd=ROOT, env=_env(), start_new_session=True, stdout=subprocess.PIPE, text=True
    )
    line = process.stdout.readline()  # returns once it listens, or empty if it died
    match = re.search(r"listening on (http://\S+)", line)
    if not match:
        _stop([process])
        raise SystemExit(f"the simulated cluster did not start: {line!r}")
    print(line.strip(), flush=True)
    return process, match.group(1)


def _start_real_cluster() -> subprocess.Popen:
    """The real control plane with the demo's GPU nodes (KWOK), fresh on every start:
    the portal's reconciler puts the saved policy back into it."""
    REAL_WORKDIR.parent.mkdir(parents=True, exist_ok=True)
    argv = [PYTHON, "-m", "realcluster", "up", "--workdir", str(REAL_WORKDIR), "--demo-nodes"]
    if env_bool("QM_KUEUE_FAIR_SHARING", True):
        argv += ["--fair-sharing"]
    print("starting the real control plane (building it first if needed: see docs/realcluster.md)…")
    process = subprocess.Popen(
        argv, cwd=ROOT, env=_env(), start_new_session=True, stdout=subprocess.PIPE, text=True
    )
    line = process.stdout.readline()
    if not line.startswith("realcluster up"):
        _stop([process])
        raise SystemExit(f"the real control plane did not start: {line!r}")
    print(line.strip(), flush=True)
    return process


def _start_prometheus(sim_url: str, first_start: bool) -> list[subprocess.Popen]:
    """A real Prometheus on the cluster's metrics when the package is installed."""
    if not demo_prometheus.available():
        print("prometheus is not installed: reports will mark GPU-metric panels as missing")
        return []
    work = ROOT / "var" / "prometheus"
    work.mkdir(parents=True, exist_ok=True)
    if first_start:
        print("backfilling the week's GPU metrics into Prometheus…", flush=True)
        demo_prometheus.backfill(sim_url, work, DEMO_DAYS)
    process, url = demo_prometheus.start(sim_url, work)
    _EXTRA_ENV["PROMETHEUS_URL"] = url
    print(f"Prometheus at {url}", flush=True)
    return [process]


def main() -> int:
    host, port = os.environ.get("QM_HOST", "127.0.0.1"), os.environ.get("QM_PORT", "8000")
    first_start = not (ROOT / "var" / "simcluster.json").exists()
    with_cluster = env_bool("QM_CLUSTER_SYNC", True)
    cluster: list[subprocess.Popen] = []
    processes: list[subprocess.Popen] = []
    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    try:
        if with_cluster and _real():
            cluster.append(_start_real_cluster())
        elif with_cluster:
            sim, sim_url = _start_cluster(first_start)
            cluster.append(sim)
            cluster[:0] = _start_prometheus(sim_url, first_start)
        # The real cluster has no generated week: it gets the demo policy only.
        _prepare(seeded=with_cluster and not _real())
        processes = [_start("web", _web_argv(host, port)), _start("worker+beat", _worker_argv())]
        _announce(host, port, with_cluster=with_cluster)
        while not stop["now"] and all(p.poll() is None for p in processes):
            time.sleep(0.5)
    finally:
        print("\nstopping…", flush=True)
        _stop(processes)
        _stop(cluster)  # last, so it saves its snapshot after the worker's final writes
    failed = [p for p in processes if p.returncode not in (0, -signal.SIGTERM, None)]
    return 1 if failed and not stop["now"] else 0


def _prepare(*, seeded: bool) -> None:
    _manage("migrate", "--noinput", "-v0")
    # Both load the demo into a new database only (DemoSeed): a restart changes nothing.
    if seeded:
        _manage("seed_demo", "--days", str(DEMO_DAYS))
    else:
        _manage("load_demo")


def _web_argv(host: str, port: str) -> list[str]:
    return [PYTHON, "manage.py", "runserver", f"{host}:{port}", "--noreload"]


def _worker_argv() -> list[str]:
    schedule = str(ROOT / "var" / "celerybeat-schedule")
    # Four: the history recorder and the status watch each hold one most of the time.
    return [PYTHON, "-m", "celery", "-A", "portal", "worker", "-B", "--loglevel", "INFO"] + [
        "--concurrency",
        "4",
        "--schedule",
        schedule,
    ]


def _announce(host: str, port: str, *, with_cluster: bool) -> None:
    print(f"\nQuartermaster is running at http://{host}:{port}/  (Ctrl-C stops everything)\n")
    if with_cluster:
        kubeconfig = _kubeconfig().relative_to(ROOT)
        print(f"Kueue objects: kubectl --kubeconfig {kubeconfig} get clusterqueues,workloads -A\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
