"""Fixtures that start the simulated cluster and talk to it like real clients do.

* ``sim`` — a fresh in-process server per test (``start_server``), kubeconfig in tmp.
* ``sim_process`` — ``python -m simcluster serve --port 0`` as a subprocess (module scope).
* ``api_client`` / ``core`` / ``batch`` / ``custom`` — official client bound to ``sim``.
* ``kubectl`` — run kubectl against ``sim`` (own cache dir); returns CompletedProcess.
* ``hooks`` — JSON helper for the ``/simcluster/`` endpoints of ``sim``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client, config

from simcluster.server import SimServer, start_server

REPO = Path(__file__).resolve().parents[2]
KUEUE = ("kueue.x-k8s.io", "v1beta2")


def wait_until(predicate: Callable[[], Any], timeout: float = 60.0, interval: float = 0.05) -> Any:
    """Poll ``predicate`` until truthy; fail the test at the deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(interval)
    pytest.fail(f"condition not met within {timeout}s")


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[SimServer]:
    server = start_server(kubeconfig_out=tmp_path / "kubeconfig", bookmark_interval=0.2)
    yield server
    server.stop()


@pytest.fixture
def api_client(sim: SimServer) -> Iterator[client.ApiClient]:
    api = config.new_client_from_config(str(sim.kubeconfig_path))
    yield api
    api.close()


@pytest.fixture
def core(api_client: client.ApiClient) -> client.CoreV1Api:
    return client.CoreV1Api(api_client)


@pytest.fixture
def batch(api_client: client.ApiClient) -> client.BatchV1Api:
    return client.BatchV1Api(api_client)


@pytest.fixture
def custom(api_client: client.ApiClient) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(api_client)


class Hooks:
    """Tiny JSON client for ``/simcluster/...``."""

    def __init__(self, base: str) -> None:
        self.base = base

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.base}/simcluster/{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())


@pytest.fixture
def hooks(sim: SimServer) -> Hooks:
    return Hooks(sim.url)


KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"


@pytest.fixture
def kubectl(sim: SimServer, tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    if not Path(KUBECTL).exists():
        pytest.skip("kubectl not installed")
    cache = tmp_path / "kubectl-cache"

    def run(
        *args: str, stdin: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        command = [
            KUBECTL,
            "--kubeconfig",
            str(sim.kubeconfig_path),
            "--cache-dir",
            str(cache),
            *args,
        ]
        full_env = {**os.environ, "HOME": str(tmp_path), **(env or {})}
        return subprocess.run(
            command, input=stdin, capture_output=True, text=True, timeout=60, env=full_env
        )

    return run


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


@pytest.fixture(scope="module")
def sim_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("simcluster"))
    yield server
    server.stop()


def make_cq(name: str, cohort: str | None = "all", **spec: Any) -> dict[str, Any]:
    """A small valid ClusterQueue manifest (v1beta2)."""
    body: dict[str, Any] = {
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "memory"],
                "flavors": [
                    {
                        "name": "default",
                        "resources": [
                            {"name": "cpu", "nominalQuota": 8},
                            {"name": "memory", "nominalQuota": "32Gi"},
                        ],
                    }
                ],
            }
        ],
    }
    if cohort:
        body["cohortName"] = cohort
    body.update(spec)
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": body,
    }


def make_lq(name: str, namespace: str = "default", cluster_queue: str = "cq") -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": cluster_queue},
    }


def make_workload(name: str, queue: str = "lq", cpu: str = "1") -> dict[str, Any]:
    container = {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": name},
        "spec": {
            "queueName": queue,
            "podSets": [
                {"name": "main", "count": 1, "template": {"spec": {"containers": [container]}}}
            ],
        },
    }


def status_of(error: client.ApiException) -> dict[str, Any]:
    """The ``Status`` body of an ApiException."""
    return json.loads(error.body)


@pytest.fixture
def live(sim: SimServer) -> Any:
    """``sim`` with the live controller attached on a virtual clock (2026-01-01T00:00:00Z)."""
    from simcluster.controller import attach

    return attach(sim, "virtual", start_ms=1_767_225_600_000)
