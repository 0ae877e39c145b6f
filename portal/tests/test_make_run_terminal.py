"""What `make run` (``python -m portal.embedded``) shows in its terminal, and how it
stops: the URL, logins and log file on every start (the second too, when nothing is
loaded), the children's output in that log file instead of the terminal, and Ctrl-C or
SIGTERM stopping everything within 10 s without a traceback.

The real launcher in its embedded default (SQLite, filesystem broker) in a data
directory of its own, without the cluster to keep the start short, but for one test that
stops it while the cluster plays the demo week."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from portal.demo.prometheus import free_port
from testkit.waiting import wait_until

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
STOPPED_WITHIN = 10.0


class Launcher:
    """One `make run` on ``data_dir``, its terminal captured in a file."""

    def __init__(
        self, data_dir: Path, terminal: Path, *, sigint_ignored: bool = False, cluster=False
    ):
        self.data_dir, self.terminal = data_dir, terminal
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update(QM_DATA_DIR=str(data_dir), QM_PORT=str(self.port))
        env.update(QM_CLUSTER_SYNC="true" if cluster else "false")
        env.update(QM_ENV="dev", PYTHONUNBUFFERED="1")
        with terminal.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "portal.embedded"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                preexec_fn=_ignore_sigint if sigint_ignored else None,
            )  # fmt: skip

    def shown(self) -> str:
        return self.terminal.read_text()

    def running(self) -> bool:
        assert self.process.poll() is None, self.shown()[-3000:]
        return f"http://127.0.0.1:{self.port}/" in self.shown()

    def stop(self, signum: int) -> float:
        """Send ``signum``; how many seconds until the launcher exited."""
        sent = time.monotonic()
        self.process.send_signal(signum)
        try:
            self.process.wait(timeout=60)
        finally:
            self.process.kill()
        return time.monotonic() - sent

    def web_server_pids(self) -> list[int]:
        return [pid for pid in _pids() if f"127.0.0.1:{self.port}" in _cmdline(pid)]


def _ignore_sigint() -> None:
    """As a shell starts a background job (``make run &``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.fixture
def launch(tmp_path):
    started: list[Launcher] = []

    def start(name: str) -> Launcher:
        launcher = Launcher(tmp_path / "data", tmp_path / f"{name}.terminal")
        started.append(launcher)
        wait_until(launcher.running, timeout=300, interval=0.5)
        return launcher

    yield start
    for launcher in started:
        if launcher.process.poll() is None:
            launcher.process.kill()


def test_ctrl_c_stops_everything_within_10_s_and_a_second_start_shows_the_logins(launch):
    first = launch("first")
    shown = first.shown()
    assert "admin    / admin-demo-pass" in shown
    assert "alice    / alice-demo-pass" in shown
    assert "Logs of the web server, worker and cluster: " in shown
    log = first.data_dir / "log" / "make-run.log"
    assert str(log) in shown
    # The children's output is in the log file, not in the terminal.
    wait_until(lambda: "celery@" in log.read_text(), timeout=120)
    assert "celery@" not in first.shown()
    assert first.web_server_pids()

    assert first.stop(signal.SIGINT) < STOPPED_WITHIN
    assert "Traceback" not in first.shown()
    assert first.process.returncode == 0
    assert first.web_server_pids() == []

    second = launch("second")  # the same data directory: nothing is loaded again
    assert "nothing loaded" in log.read_text()
    assert "Logins (as the demo loaded them):" in second.shown()
    assert "bob      / bob-demo-pass" in second.shown()
    assert second.stop(signal.SIGTERM) < STOPPED_WITHIN
    assert "Traceback" not in second.shown()


def test_ctrl_c_during_the_start_up_commands_stops_without_a_traceback(tmp_path):
    launcher = Launcher(tmp_path / "data", tmp_path / "terminal", sigint_ignored=True)
    wait_until(lambda: "starting Quartermaster" in launcher.shown(), timeout=60, interval=0.1)

    assert launcher.stop(signal.SIGINT) < STOPPED_WITHIN
    assert "Traceback" not in launcher.shown()
    assert "KeyboardInterrupt" not in launcher.shown()


def test_ctrl_c_while_the_demo_week_plays_stops_everything_within_10_s(tmp_path):
    launcher = Launcher(tmp_path / "data", tmp_path / "terminal", cluster=True)
    try:
        wait_until(launcher.running, timeout=300, interval=0.5)
        # The worker's recorder follows the week: the status line has moved past day 1.
        wait_until(lambda: "(25 %)" in launcher.shown(), timeout=300, interval=0.5)
        children = _children_of(launcher.process.pid)
        assert len(children) >= 3  # the cluster, the web server, the worker

        assert launcher.stop(signal.SIGINT) < STOPPED_WITHIN
    finally:
        launcher.process.kill()
    assert "Traceback" not in launcher.shown()
    assert [pid for pid in children if Path(f"/proc/{pid}").exists()] == []
    assert "simcluster seeding" not in launcher.shown()  # the cluster's output is the week's


def _children_of(parent: int) -> list[int]:
    path = Path(f"/proc/{parent}/task/{parent}/children")
    return [int(pid) for pid in path.read_text().split()]
