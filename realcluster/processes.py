"""Child processes of the control plane: start with a log file, wait for ready, stop."""

from __future__ import annotations

import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path


class StartupError(RuntimeError):
    """A component exited or did not become ready; the message ends with its log's tail."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Component:
    """One binary of the control plane, its arguments and its log."""

    def __init__(self, name: str, argv: list[str], logs: Path, env: dict[str, str] | None = None):
        self.name, self.argv, self.env = name, argv, env
        self.log_path = logs / f"{name}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> Component:
        log = open(self.log_path, "ab")  # noqa: SIM115 (the child keeps it open)
        self.process = subprocess.Popen(
            self.argv, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True
        )
        log.close()
        return self

    def wait_ready(self, check: Callable[[], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.process is not None and self.process.poll() is not None:
                raise StartupError(
                    f"{self.name} exited with {self.process.returncode}\n{self.tail()}"
                )
            if _quietly(check):
                return
            if time.monotonic() > deadline:
                raise StartupError(f"{self.name} not ready within {timeout:.0f}s\n{self.tail()}")
            time.sleep(0.2)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, grace: float = 15.0) -> None:
        if not self.alive():
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def tail(self, lines: int = 25) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _quietly(check: Callable[[], bool]) -> bool:
    try:
        return bool(check())
    except (OSError, urllib.error.URLError, ssl.SSLError, ValueError):
        return False


def http_ok(
    url: str, context: ssl.SSLContext | None = None, expect: str = ""
) -> Callable[[], bool]:
    """A readiness check: the URL answers 200 (and its body contains ``expect``)."""

    def check() -> bool:
        with urllib.request.urlopen(url, timeout=2, context=context) as response:
            return response.status == 200 and expect in response.read().decode(errors="replace")

    return check


def insecure_tls() -> ssl.SSLContext:
    """For health endpoints served with self-signed certificates on loopback."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context
