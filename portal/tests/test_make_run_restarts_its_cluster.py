"""`make run`'s simulated cluster, killed, comes back from its snapshot on the same port
with the same token: the portal's kubeconfig stays valid and nothing is replayed."""

from __future__ import annotations

import os
import signal

import pytest

from core.kube import KubeClient, KubeError, ResourceRef
from portal import embedded
from portal.restart_policy import RestartPolicy
from portal.supervisor import Supervisor
from testkit.waiting import wait_until

pytestmark = pytest.mark.slow
NAMESPACES = ResourceRef("", "v1", "namespaces", "Namespace", False)


@pytest.fixture
def supervisor(tmp_path, monkeypatch, settings):
    monkeypatch.setenv("QM_DATA_DIR", str(tmp_path))
    settings.KUBECONFIG, settings.QM_KUBE_TIMEOUT_SECONDS = str(tmp_path / "kubeconfig"), 5.0
    watching = Supervisor(RestartPolicy(first_backoff_seconds=0.1), say=print)
    yield watching
    watching.stop()


def _cluster() -> KubeClient:
    client = KubeClient()
    client.enforce_rbac = False  # the test plays an admin with kubectl
    return client


def _has_namespace(name: str) -> bool:
    try:
        with _cluster() as kube:
            return kube.get(NAMESPACES, name) is not None
    except KubeError:
        return False  # still restarting


def test_a_killed_cluster_resumes_from_its_snapshot_on_the_same_port(supervisor, tmp_path):
    child, url = embedded._cluster_child(first_start=False)
    supervisor.add(child)
    with _cluster() as kube:
        kube.create(NAMESPACES, {"metadata": {"name": "kept-across-restarts"}})
    snapshot = tmp_path / "simcluster.json"
    wait_until(lambda: snapshot.exists() and "kept-across-restarts" in snapshot.read_text(), 120)
    first = child.process.pid

    os.killpg(first, signal.SIGKILL)  # no chance to save on the way out
    wait_until(lambda: supervisor.check() is None and child.process.pid != first, 60)
    assert child.process.poll() is None
    assert url in (tmp_path / "kubeconfig").read_text()
    assert wait_until(lambda: _has_namespace("kept-across-restarts"), 60)
