"""`make run`: the whole portal on the embedded default, in one terminal.

Starts the simulated Kubernetes cluster (unless ``QM_CLUSTER_SYNC=false``), the
web server and a Celery worker with embedded beat (filesystem broker, no Redis),
prints the URL, demo logins, the kubectl command and the log file on every start, and
stops everything within seconds on Ctrl-C or SIGTERM. The children's output goes to that
log file (``<QM_DATA_DIR>/log/make-run.log``); the terminal (``portal.terminal``) keeps
to what people need: the URL, logins, one updating status line, and what went wrong.
It restarts a child that dies (``portal.supervisor``): the web server keeps answering
while the worker comes back, and the simulated cluster comes back from its snapshot on
the same port; one that keeps dying fast stops everything with a message.
On the first start the portal answers at once: the cluster plays the demo week behind
it, the worker's history recorder watches it as it happens, and ``DemoWeek``
(``portal/demo/week.py``) shows the progress (terminal and a banner on every page),
builds the week's reports when it is done, and the URL and logins are shown again.
``QM_CLUSTER=real`` starts the real control plane from ``realcluster/`` instead (the
real Kueue on KWOK nodes; no generated week). The portal is always pointed at the
cluster started here, never at whatever ``KUBECONFIG`` the shell has, so a demo never
writes to a cluster someone else runs.
"""

from __future__ import annotations

import io
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

from portal import preparing
from portal.demo import prometheus as demo_prometheus
from portal.demo.fair_sharing import DEMO_ADMISSION_FAIR_SHARING
from portal.demo.logins import LOGINS, NEVER_LOADED, login_lines
from portal.demo.week import DemoWeek
from portal.env import env_bool, env_choice, env_str
from portal.supervisor import Child, Supervisor, stop_processes
from portal.terminal import Terminal, open_log

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
PREFERRED_SIM_PORT = 6443
DEMO_DAYS = 7
MANAGED_BY = "app.kubernetes.io/managed-by"


# Set once the launcher knows them (e.g. PROMETHEUS_URL), passed to every child.
_EXTRA_ENV: dict[str, str] = {}
TERMINAL = Terminal()
_LOG: dict[str, IO[bytes]] = {}  # the open log file, once opened


def _env() -> dict[str, str]:
    env = {**os.environ, **_EXTRA_ENV}
    env.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    env.setdefault("QM_ENV", "dev")
    # The demo's idle notebook is warned, then culled, within minutes of the start.
    env.setdefault("QM_CULL_INTERVAL_SECONDS", "60")
    # The demo's Kueue runs with fair sharing (see _start_cluster), so weights matter.
    env.setdefault("QM_KUEUE_FAIR_SHARING", "true")
    # And with AdmissionFairSharing (``--admission-fair-sharing``): quotes order the fair
    # queue's members by usage as it does.
    env.setdefault("QM_KUEUE_ADMISSION_FAIR_SHARING", json.dumps(DEMO_ADMISSION_FAIR_SHARING))
    if not _real():
        # Demo jobs keep their checkpoints on a team volume the simulated cluster keeps
        # across restarts; the real control plane has no storage provisioner to bind one.
        env.setdefault("QM_CHECKPOINT_STORAGE_CLASS", "sim-checkpoints")
    env["PYTHONUNBUFFERED"] = "1"
    if env_bool("QM_CLUSTER_SYNC", True):
        env["KUBECONFIG"] = str(_kubeconfig())
    return env


def _real() -> bool:
    return env_choice("QM_CLUSTER", ("sim", "real"), "sim") == "real"


def _kubeconfig() -> Path:
    return _real_workdir() / "kubeconfig" if _real() else _simulated_kubeconfig()


def _log() -> IO[bytes]:
    if "file" not in _LOG:
        _LOG["file"] = open_log(_log_path())
    return _LOG["file"]


def _note(text: str) -> None:
    """A line of the launcher's own in the log, among its children's."""
    _log().write(f"[make run] {text}\n".encode())


def _manage(*args: str) -> str:
    """Run a management command to its end, its output into the log; what it printed."""
    _note(f"manage.py {' '.join(args)}")
    process = subprocess.Popen(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=_env(), start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    output = []
    try:
        for line in process.stdout:
            _log().write(line)
            output.append(line.decode(errors="replace"))
        process.wait()
    except BaseException:  # interrupted: the command is in no supervisor, stop it here
        stop_processes([process])
        raise
    if process.returncode != 0:
        raise SystemExit(
            f"manage.py {args[0]} failed with exit code {process.returncode}: "
            f"its output is in {_shown(_log_path())}"
        )
    return "".join(output)


def _start(name: str, argv: list[str]) -> subprocess.Popen:
    _note(f"starting {name}: {' '.join(argv)}")
    # Own process group, so Ctrl-C in the terminal reaches us first and we stop
    # the children in order instead of racing them.
    return subprocess.Popen(
        argv, cwd=ROOT, env=_env(), start_new_session=True,
        stdout=_log(), stderr=subprocess.STDOUT,
    )  # fmt: skip


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
    argv += ["--admission-fair-sharing"]  # the demo's vision queue is fair between users
    if first_start:
        # First start: the engine plays a generated week in virtual time while it serves,
        # labelled as ours so the portal adopts the demo queues; later starts resume the
        # snapshot.
        argv += ["--seed-history", str(DEMO_DAYS), "--seed-label", f"{MANAGED_BY}=quartermaster"]
        TERMINAL.say(
            f"the simulated cluster plays {DEMO_DAYS} days of demo history behind the portal"
        )
    else:
        argv += ["--trickle"]
    _note(f"starting simulated cluster: {' '.join(argv[4:])}")
    process = subprocess.Popen(
        argv, cwd=ROOT, env=_env(), start_new_session=True, stdout=subprocess.PIPE,
        stderr=_log(), text=True,
    )  # fmt: skip
    line = _first_line(process)  # once it listens, or empty if it died
    match = re.search(r"listening on (http://\S+)", line)
    if not match:
        stop_processes([process])
        raise SystemExit(f"the simulated cluster did not start: {line!r} (see {_log_path()})")
    _note(line.strip())
    return process, match.group(1)


def _first_line(process: subprocess.Popen) -> str:
    """The first line a child prints; interrupted, the child is stopped too (it is in no
    supervisor yet)."""
    try:
        return process.stdout.readline()
    except BaseException:
        stop_processes([process])
        raise


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
    argv += ["--admission-fair-sharing"]  # the demo's vision queue is fair between users
    TERMINAL.say(
        "starting the real control plane (building it first if needed: see docs/realcluster.md)…"
    )
    process = subprocess.Popen(
        argv, cwd=ROOT, env=_env(), start_new_session=True, stdout=subprocess.PIPE,
        stderr=_log(), text=True,
    )  # fmt: skip
    line = _first_line(process)
    if not line.startswith("realcluster up"):
        stop_processes([process])
        raise SystemExit(f"the real control plane did not start: {line!r} (see {_log_path()})")
    _note(line.strip())
    return _drained(process)


def _prometheus_child(sim_url: str) -> Child | None:
    """A real Prometheus on the cluster's metrics when the package is installed."""
    if not demo_prometheus.available():
        TERMINAL.say("prometheus is not installed: reports mark GPU-metric panels as missing")
        return None
    _prometheus_work().mkdir(parents=True, exist_ok=True)
    process, url = demo_prometheus.start(sim_url, _prometheus_work())
    _EXTRA_ENV["PROMETHEUS_URL"] = url
    _note(f"Prometheus at {url}")
    port = int(url.rsplit(":", 1)[1])
    return Child(
        "prometheus",
        lambda: demo_prometheus.start(sim_url, _prometheus_work(), port=port)[0],
        process=process,
    )


def _demo_week(
    lines: IO[str], sim_url: str, *, on_ready: Callable[[], None], resume: bool = False
) -> DemoWeek:
    """Follows the week the cluster plays (``lines``, its output); Prometheus starts
    (backfilled) when it is done, on a port chosen now so that the web server and worker
    know its URL from the start."""
    _prometheus_work().mkdir(parents=True, exist_ok=True)
    week = DemoWeek(
        lines, sim_url=sim_url, data_dir=_data_dir(), prometheus_work=_prometheus_work(),
        pending=_demo_week_pending(), days=DEMO_DAYS, resume=resume,
        spawn=lambda name, args: _start(name, [PYTHON, "manage.py", *args]),
        terminal=TERMINAL, on_ready=on_ready,
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


def _log_path() -> Path:
    return _data_dir() / "log" / "make-run.log"


def main() -> int:
    """Run until Ctrl-C or SIGTERM (exit 0) or until a child is given up on (exit 1)."""
    # Both interrupt whatever the launcher waits on (a start-up command too), and
    # ``_run``'s clean-up stops the children: no traceback, nothing left running.
    # SIGINT too: started in the background by a shell, the launcher inherits it ignored.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.default_int_handler)
    try:
        failure = _run()
    except KeyboardInterrupt:
        return 0
    except SystemExit as exc:
        if isinstance(exc.code, str):
            TERMINAL.say(f"make run stopped: {exc.code}")
            return 1
        raise
    if failure:
        TERMINAL.say(f"make run stopped: {failure}")
        return 1
    return 0


def _run() -> str | None:
    host, port = os.environ.get("QM_HOST", "127.0.0.1"), os.environ.get("QM_PORT", "8000")
    first_start = not _snapshot().exists()
    with_cluster = env_bool("QM_CLUSTER_SYNC", True)
    supervisor = Supervisor(say=TERMINAL.say)
    week: DemoWeek | None = None
    preparing.clear(_data_dir())  # a launcher that was killed may have left its record
    TERMINAL.say(f"starting Quartermaster; its processes log to {_shown(_log_path())}")
    _note("make run starts")
    logins: list[str] = []  # filled in by the start-up commands, before the week can be ready

    def announce() -> None:
        _announce(host, port, logins, with_cluster=with_cluster)

    try:
        if with_cluster and _real():
            # Fresh on every start, so a restart would lose what the portal put there.
            real = Child("real control plane", _start_real_cluster, restart=False, stop_last=True)
            supervisor.add(real)
        elif with_cluster:
            cluster, sim_url = _cluster_child(first_start=first_start)
            supervisor.add(cluster)
            if first_start:
                week = _demo_week(cluster.process.stdout, sim_url, on_ready=announce).start()
            else:
                if prometheus := _prometheus_child(sim_url):
                    supervisor.add(prometheus)
                if _demo_week_pending().exists():  # the first start was stopped half-way
                    # Nothing more to follow: the cluster's output is drained already.
                    week = _demo_week(io.StringIO(), sim_url, on_ready=announce, resume=True)
        # The real cluster has no generated week: it gets the demo policy only.
        logins += _prepare(seeded=with_cluster and not _real())
        supervisor.add(Child("web", lambda: _start("web", _web_argv(host, port))))
        supervisor.add(Child("worker+beat", lambda: _start("worker+beat", _worker_argv())))
        announce()
        if week is not None and week.resume:
            week.start()
        return supervisor.run(lambda: False)
    finally:
        _stop_everything(supervisor, week)


def _stop_everything(supervisor: Supervisor, week: DemoWeek | None) -> None:
    # A second Ctrl-C must not cut the clean-up short (nor print a traceback).
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    TERMINAL.end_status()
    TERMINAL.say("stopping…")
    _note("make run stops")
    also: list[subprocess.Popen] = []
    if week is not None:
        week.stop()
        also = week.children
    supervisor.stop(also=also)  # the cluster last, so it saves after the worker's writes
    preparing.clear(_data_dir())
    TERMINAL.say("stopped")


# What every start runs before the web server and worker, in order. Both demo commands
# load the demo into a new database only (DemoSeed): a restart changes nothing.
PREPARE_SEEDED = [["migrate", "--noinput", "-v0"], ["seed_demo"]]
PREPARE_UNSEEDED = [["migrate", "--noinput", "-v0"], ["load_demo"]]


def _prepare(*, seeded: bool) -> list[str]:
    """Run the start-up commands; the lines that show the logins."""
    commands = PREPARE_SEEDED if seeded else PREPARE_UNSEEDED
    return logins_to_show("".join(_manage(*command) for command in commands))


def logins_to_show(output: str) -> list[str]:
    """The terminal's lines about logins, from what the start-up commands printed: the
    demo's, also on a start that loaded nothing, but none in a database that had users
    before the demo (it was never loaded there)."""
    if NEVER_LOADED in output:
        return [NEVER_LOADED]
    header = "Logins:" if "Demo logins:" in output else "Logins (as the demo loaded them):"
    return [header, *login_lines(LOGINS)]


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


def _announce(host: str, port: str, logins: list[str], *, with_cluster: bool) -> None:
    """What people need to use the portal, on every start and once the week is ready."""
    lines = [f"\nQuartermaster is running at http://{host}:{port}/  (Ctrl-C stops everything)"]
    lines += logins
    if with_cluster:
        lines.append(
            f"Kueue objects: kubectl --kubeconfig {_shown(_kubeconfig())} get clusterqueues,workloads -A"
        )
    lines.append(f"Logs of the web server, worker and cluster: {_shown(_log_path())}\n")
    TERMINAL.say("\n".join(lines))


def _shown(path: Path) -> Path:
    """Relative when under the checkout, as make run's default data directory is."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


if __name__ == "__main__":
    sys.exit(main())
