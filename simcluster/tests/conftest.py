"""Fixtures that start the simulated cluster and talk to it like real clients do.

* ``sim`` — a fresh in-process server per test (``start_server``), kubeconfig in tmp
  (here it stands for the kit's ``sim``, the server as a subprocess with two nodes).
* ``sim_process`` — ``python -m simcluster serve --port 0`` as a subprocess (module scope).
* ``api_client`` / ``core`` / ``batch`` / ``custom`` — official client bound to ``sim``.
* ``kubectl`` — run kubectl against ``sim`` (own cache dir); returns CompletedProcess.
* ``hooks`` — JSON helper for the ``/simcluster/`` endpoints of ``sim``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client, config

from simcluster.server import SimServer, start_server
from testkit.sim_hooks import Hooks
from testkit.sim_process import KUBECTL, ServerProcess


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


@pytest.fixture
def hooks(sim: SimServer) -> Hooks:
    return Hooks(sim.url)


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


@pytest.fixture(scope="module")
def sim_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("simcluster"))
    yield server
    server.stop()


@pytest.fixture
def live(sim: SimServer) -> Any:
    """``sim`` with the live controller attached on a virtual clock (2026-01-01T00:00:00Z)."""
    from simcluster.controller import attach

    return attach(sim, "virtual", start_ms=1_767_225_600_000)
