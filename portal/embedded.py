"""`make run`: the whole portal on the embedded default, in one terminal.

Starts the simulated Kubernetes cluster (unless ``QM_CLUSTER_SYNC=false``), the
web server and a Celery worker with embedded beat (filesystem broker, no Redis),
prints the URL, demo logins and the kubectl command, and stops everything on Ctrl-C.
It restarts a child that dies (``portal.supervisor``): the web server keeps answering
while the worker comes back, and the simulated cluster comes back from its snapshot on
the same port; one that keeps dying fast stops everything with a message.
On the first start the portal answers at once: the cluster plays the demo week behind
it, the worker's history recorder watches it as it happens, and ``DemoWeek``
(``portal/demo/week.py``) shows the progress (terminal and a banner on every page) and
builds the week's reports when it is done.
``QM_CLUSTER=real`` starts the real control plane from ``realcluster/`` instead (the
real Kueue on KWOK nodes; no generated week). The portal is always pointed at the
cluster started here, never at whatever ``KUBECONFIG`` the shell has, so a demo never
writes to a cluster someone else runs.
"""

from __future__ import annotations

import io
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from portal import preparing
from portal.demo import prometheus as demo_prometheus
from portal.demo.week import DemoWeek
from portal.env import env_bool, env_choice, env_str
from portal.supervisor import Child, Supervisor, stop_processes

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
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
    return _real_workdir() / "kubeconfig" if _real() else _simulated_kubeconfig()


def _manage(*args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=_env(), check=True)


def _start(name: str, argv: list[str]) -> subprocess.Popen:
    print(f"starting {name}: {' '.join(argv)}", flush=True)
    # Own process group, so Ctrl-C in the terminal reaches us first and we stop
    # the children in order instead of racing them.
    return subprocess.Popen(argv, cwd=ROOT, env=_env(), start_new_session=True)


def _free_port() -> int:
    """6443 like a real API server when it is free, otherwise any free port."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", PREFERRED_SIM_PORT))
            return PREFERRED_SIM_PORT
        except OSError:
            return 0


def _start_cluster(*, port: int, token: str, first_start: bool) -> tuple[subprocess.Popen, str]:
    argv = [PYTHON, "-m", "simcluster", "serve", "--port", str(port), "--token", token]
    argv += ["--kubeconfig-out", str(_simulated_kubeconfig()), "--snapshot", str(_snapshot())]
    if env_bool("QM_KUEUE_FAIR_SHARING", True):
        argv += ["--fair-sharing"]  # what the portal's settings say the cluster's Kueue does
    if first_start:
        # First start: the engine plays a generated week in virtual time while it serves,
        # labelled as ours so the portal adopts the demo queues; later starts resume the
        # snapshot.
        argv += ["--seed-history", str(DEMO_DAYS), "--seed-label", f"{MANAGED_BY}=quartermaster"]
        print(f"the simulated cluster plays {DEMO_DAYS} days of demo history behind the portal")
    else:
        argv += ["--trickle"]
    print(f"starting simulated cluster: {' '.join(argv[4:])}", flush=True)
    process = subprocess.Popen(
        argv, cwd=ROOT, env=_env(), start_new_session=True, stdout=subprocess.PIPE, text=True
    )
    line = process.stdout.readline()  # returns once it listens, or empty if it died
    match = re.search(r"listening on (http://\S+)", line)
    if not match:
        stop_processes([process])
        raise SystemExit(f"the simulated cluster did not start: {line!r}")
    print(line.strip(), flush=True)
    return process, match.group(1)


def _cluster_child(*, first_start: bool) -> tuple[Child, str]:
    """The simulated cluster, started now; restarted on the same port with the same token
    from its snapshot (never the week again), so the portal's kubeconfig stays valid."""
    token = secrets.token_hex(16)
    process, url = _start_cluster(port=_free_port(), token=token, first_start=first_start)
    port = int(url.rsplit(":", 1)[1].split("/", 1)[0])

    def restart() -> subprocess.Popen:
        again, _ = _start_cluster(port=port, token=token, first_start=False)
        return _drained(again)

    # Its first output goes to DemoWeek on a first start; nobody else reads it.
    child = Child("simulated cluster", restart, process=process, stop_last=True)
    if not first_start:
        _drained(process)
    return child, url


def _drained(process: subprocess.Popen) -> subprocess.Popen:
    """Keep reading what the process prints, so a full pipe never blocks it."""
    thread = threading.Thread(target=process.stdout.read, name="drain", daemon=True)
    thread.start()
    return process


def _start_real_cluster() -> subprocess.Popen:
    """The real control plane with the demo's GPU nodes (KWOK), fresh on every start:
    the portal's reconciler puts the saved policy back into it."""
    _real_workdir().parent.mkdir(parents=True, exist_ok=True)
    argv = [PYTHON, "-m", "realcluster", "up", "--workdir", str(_real_workdir()), "--demo-nodes"]
    if env_bool("QM_KUEUE_FAIR_SHARING", True):
        argv += ["--fair-sharing"]
    print("starting the real control plane (building it first if needed: see docs/realcluster.md)…")
    process = subprocess.Popen(
        argv, cwd=ROOT, env=_env(), start_new_session=True, stdout=subprocess.PIPE, text=True
    )
    line = process.stdout.readline()
    if not line.startswith("realcluster up"):
        stop_processes([process])
        raise SystemExit(f"the real control plane did not start: {line!r}")
    print(line.strip(), flush=True)
    return process


def _prometheus_child(sim_url: str) -> Child | None:
    """A real Prometheus on the cluster's metrics when the package is installed."""
    if not demo_prometheus.available():
        print("prometheus is not installed: reports will mark GPU-metric panels as missing")
        return None
    _prometheus_work().mkdir(parents=True, exist_ok=True)
    process, url = demo_prometheus.start(sim_url, _prometheus_work())
    _EXTRA_ENV["PROMETHEUS_URL"] = url
    print(f"Prometheus at {url}", flush=True)
    port = int(url.rsplit(":", 1)[1])
    return Child(
        "prometheus",
        lambda: demo_prometheus.start(sim_url, _prometheus_work(), port=port)[0],
        process=process,
    )


def _demo_week(lines: IO[str], sim_url: str, *, resume: bool = False) -> DemoWeek:
    """Follows the week the cluster plays (``lines``, its output); Prometheus starts
    (backfilled) when it is done, on a port chosen now so that the web server and worker
    know its URL from the start."""
    _prometheus_work().mkdir(parents=True, exist_ok=True)
    week = DemoWeek(
        lines, sim_url=sim_url, data_dir=_data_dir(), prometheus_work=_prometheus_work(),
        pending=_demo_week_pending(), days=DEMO_DAYS, resume=resume,
        spawn=lambda name, args: _start(name, [PYTHON, "manage.py", *args]),
    )  # fmt: skip
    if week.prometheus_url:
        _EXTRA_ENV["PROMETHEUS_URL"] = week.prometheus_url
    return week


def _data_dir() -> Path:
    """Where the portal keeps its data (``QM_DATA_DIR``, as portal/settings.py reads it).

    The cluster's snapshot and kubeconfig live beside the database: a portal started on
    another data directory must not adopt (or overwrite) this one's cluster.
    """
    return Path(env_str("QM_DATA_DIR", str(ROOT / "var")))


def _simulated_kubeconfig() -> Path:
    return _data_dir() / "kubeconfig"


def _real_workdir() -> Path:
    return _data_dir() / "realcluster"


def _prometheus_work() -> Path:
    return _data_dir() / "prometheus"


def _snapshot() -> Path:
    return _data_dir() / "simcluster.json"


def _demo_week_pending() -> Path:
    """Present from a first start until its demo week's reports are built."""
    return _data_dir() / "demo-week.pending"


def main() -> int:
    host, port = os.environ.get("QM_HOST", "127.0.0.1"), os.environ.get("QM_PORT", "8000")
    first_start = not _snapshot().exists()
    with_cluster = env_bool("QM_CLUSTER_SYNC", True)
    supervisor = Supervisor(say=_say)
    week: DemoWeek | None = None
    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    preparing.clear(_data_dir())  # a launcher that was killed may have left its record
    failure = None
    try:
        if with_cluster and _real():
            # Fresh on every start, so a restart would lose what the portal put there.
            real = Child("real control plane", _start_real_cluster, restart=False, stop_last=True)
            supervisor.add(real)
        elif with_cluster:
            cluster, sim_url = _cluster_child(first_start=first_start)
            supervisor.add(cluster)
            if first_start:
                week = _demo_week(cluster.process.stdout, sim_url).start()
            else:
                if prometheus := _prometheus_child(sim_url):
                    supervisor.add(prometheus)
                if _demo_week_pending().exists():  # the first start was stopped half-way
                    # Nothing more to follow: the cluster's output is drained already.
                    week = _demo_week(io.StringIO(), sim_url, resume=True)
        # The real cluster has no generated week: it gets the demo policy only.
        _prepare(seeded=with_cluster and not _real())
        supervisor.add(Child("web", lambda: _start("web", _web_argv(host, port))))
        supervisor.add(Child("worker+beat", lambda: _start("worker+beat", _worker_argv())))
        _announce(host, port, with_cluster=with_cluster)
        if week is not None and week.resume:
            week.start()
        failure = supervisor.run(lambda: stop["now"])
    finally:
        print("\nstopping…", flush=True)
        if week is not None:
            week.stop()
            stop_processes(week.children)
        supervisor.stop()  # the cluster last, so it saves its snapshot after the worker's writes
        preparing.clear(_data_dir())
    if failure:
        print(f"make run stopped: {failure}", file=sys.stderr, flush=True)
        return 1
    return 0


def _say(text: str) -> None:
    print(text, flush=True)


# What every start runs before the web server and worker, in order. Both demo commands
# load the demo into a new database only (DemoSeed): a restart changes nothing.
PREPARE_SEEDED = [["migrate", "--noinput", "-v0"], ["seed_demo"]]
PREPARE_UNSEEDED = [["migrate", "--noinput", "-v0"], ["load_demo"]]


def _prepare(*, seeded: bool) -> None:
    for command in PREPARE_SEEDED if seeded else PREPARE_UNSEEDED:
        _manage(*command)


def _web_argv(host: str, port: str) -> list[str]:
    return [PYTHON, "manage.py", "runserver", f"{host}:{port}", "--noreload"]


def _worker_argv() -> list[str]:
    schedule = str(_data_dir() / "celerybeat-schedule")
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
        kubeconfig = _kubeconfig()  # relative when under the checkout, as make run's default
        kubeconfig = kubeconfig.relative_to(ROOT) if kubeconfig.is_relative_to(ROOT) else kubeconfig
        print(f"Kueue objects: kubectl --kubeconfig {kubeconfig} get clusterqueues,workloads -A\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
