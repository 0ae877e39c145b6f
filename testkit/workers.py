"""Celery workers as real subprocesses on the test database and Redis."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from testkit.paths import REPO


def shared_database_url() -> str:
    """The test database as a ``DATABASE_URL``, for processes that work on it too."""
    from django.db import connection

    db = connection.settings_dict
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    return f"postgres://{db['USER'] or 'postgres'}@{host}:{port}/{db['NAME']}"


def celery_worker(*options: str) -> list[str]:
    """The command of a ``celery worker`` for the portal's app; a test's worker needs
    neither gossip nor mingle (it is alone on its broker)."""
    argv = [sys.executable, "-m", "celery", "-A", "portal", "worker", *options]
    return argv + ["--without-gossip", "--without-mingle"]


class Worker:
    """``celery worker`` (plus optional embedded beat) for the test database."""

    def __init__(self, env: dict[str, str], workdir: Path):
        self.env, self.workdir = env, workdir
        self.process: subprocess.Popen | None = None

    def start(self) -> Worker:
        argv = celery_worker("--pool", "threads", "--concurrency", "2", "--loglevel", "INFO")
        log = open(self.workdir / "worker.log", "w")  # noqa: SIM115 (closed with the process)
        self.process = subprocess.Popen(
            argv, cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        return self

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self) -> str:
        return (self.workdir / "worker.log").read_text()
