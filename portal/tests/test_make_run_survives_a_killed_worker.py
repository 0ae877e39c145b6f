"""`make run` (``python -m portal.embedded``) keeps the demo up when a child dies: the
worker killed outright (the OOM killer's way) is restarted while the web server goes on
answering, and a killed web server comes back on the same port.

The real launcher in its embedded default (SQLite, filesystem broker) in a data
directory of its own, without the cluster to keep the start short."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from portal.demo.prometheus import free_port
from testkit.waiting import wait_until

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


class Launcher:
    def __init__(self, data_dir: Path):
        self.port, self.log = free_port(), data_dir / "launcher.log"
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update(QM_DATA_DIR=str(data_dir), QM_PORT=str(self.port), QM_CLUSTER_SYNC="false")
        env.update(QM_ENV="dev", PYTHONUNBUFFERED="1")
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "portal.embedded"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip

    def answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=10) as r:
                return r.status == 200
        except OSError:
            return False

    def child(self, word: str) -> int | None:
        """The pid of the launcher's child whose command line has ``word``."""
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        for pid in path.read_text().split():
            try:
                if word in Path(f"/proc/{pid}/cmdline").read_text():
                    return int(pid)
            except OSError:
                continue
        return None

    def said(self, text: str) -> bool:
        return text in self.log.read_text()


@pytest.fixture
def launcher(tmp_path):
    running = Launcher(tmp_path)
    yield running
    running.process.terminate()
    try:
        running.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        running.process.kill()


def _answers_while_waiting(launcher: Launcher, until) -> object:
    """Poll ``until`` and check, at every poll, that the web server answered."""

    def look():
        assert launcher.process.poll() is None, launcher.log.read_text()[-3000:]
        assert launcher.answers(), "the web server stopped answering"
        return until()

    return wait_until(look, timeout=180, interval=0.5)


def test_a_killed_worker_is_restarted_and_the_web_server_answers_throughout(launcher):
    wait_until(launcher.answers, timeout=300, interval=0.5)
    worker = wait_until(lambda: launcher.child("celery"), timeout=60)

    os.killpg(worker, signal.SIGKILL)  # the worker, its pool and its beat
    _answers_while_waiting(launcher, lambda: launcher.child("celery") not in (None, worker))
    assert launcher.said("worker+beat exited with exit code -9 (SIGKILL); restarting it in 1 s")
    _answers_while_waiting(launcher, lambda: launcher.said("worker+beat restarted (pid "))


def test_a_killed_web_server_comes_back_on_its_port(launcher):
    wait_until(launcher.answers, timeout=300, interval=0.5)
    web = wait_until(lambda: launcher.child("runserver"), timeout=60)

    os.killpg(web, signal.SIGKILL)
    wait_until(lambda: not launcher.answers(), timeout=30)
    wait_until(launcher.answers, timeout=120, interval=0.5)
    assert launcher.child("runserver") not in (None, web)
    assert launcher.said("web exited with exit code -9 (SIGKILL); restarting it in 1 s")
    assert launcher.process.poll() is None
