"""``python -m simcluster serve`` as a subprocess, and the kubectl that talks to it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from testkit.paths import REPO

KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"


def _read_url(process: subprocess.Popen[str]) -> str:
    line = process.stdout.readline() if process.stdout else ""
    if "listening on" not in line:
        process.kill()
        pytest.fail(
            f"server did not start: {line!r} {process.stderr.read() if process.stderr else ''}"
        )
    return line.strip().rsplit(" ", 1)[1]


class ServerProcess:
    """A ``python -m simcluster serve`` subprocess and its kubeconfig."""

    def __init__(self, tmp: Path, *extra: str) -> None:
        self.kubeconfig_path = tmp / "kubeconfig"
        command = [
            sys.executable,
            "-m",
            "simcluster",
            "serve",
            "--port",
            "0",
            "--kubeconfig-out",
            str(self.kubeconfig_path),
            *extra,
        ]
        self.process = subprocess.Popen(
            command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.url = _read_url(self.process)

    def stop(self) -> int:
        """SIGTERM and wait; returns the exit code."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            return self.process.wait(timeout=15)
        finally:
            for stream in (self.process.stdout, self.process.stderr):
                if stream:
                    stream.close()
