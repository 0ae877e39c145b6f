"""`make run`: the whole portal on the embedded default, in one terminal.

Starts the web server, a Celery worker with embedded beat (filesystem broker,
no Redis), prints the URL and demo logins, and stops everything on Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    env.setdefault("QM_ENV", "dev")
    env["PYTHONUNBUFFERED"] = "1"
    return env


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


def main() -> int:
    host, port = os.environ.get("QM_HOST", "127.0.0.1"), os.environ.get("QM_PORT", "8000")
    for folder in ("out", "control", "processed"):
        (ROOT / "var" / "broker" / folder).mkdir(parents=True, exist_ok=True)
    _manage("migrate", "--noinput", "-v0")
    _manage("load_demo")
    processes = [
        _start("web", [PYTHON, "manage.py", "runserver", f"{host}:{port}", "--noreload"]),
        _start(
            "worker+beat",
            [
                PYTHON,
                "-m",
                "celery",
                "-A",
                "portal",
                "worker",
                "-B",
                "--loglevel",
                "INFO",
                "--concurrency",
                "2",
                "--schedule",
                str(ROOT / "var" / "celerybeat-schedule"),
            ],
        ),
    ]
    print(
        f"\nQuartermaster is running at http://{host}:{port}/  (Ctrl-C stops everything)\n",
        flush=True,
    )
    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    try:
        while not stop["now"] and all(p.poll() is None for p in processes):
            time.sleep(0.5)
    finally:
        print("\nstopping…", flush=True)
        _stop(processes)
    failed = [p for p in processes if p.returncode not in (0, -signal.SIGTERM, None)]
    return 1 if failed and not stop["now"] else 0


if __name__ == "__main__":
    sys.exit(main())
