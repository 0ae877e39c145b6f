"""A worker process SIGKILLed in the middle of a reconcile (the OOM killer's way):
the message was not acknowledged (acks_late, reject_on_worker_lost), so it is run
again and the cluster converges; the run lock the dead process held lapses (it
is only renewed by a live heartbeat) instead of blocking reconciles.

When a whole worker container dies, the broker hands its unacknowledged messages
out again after QM_BROKER_VISIBILITY_TIMEOUT_SECONDS; the periodic reconcile
repairs the cluster earlier anyway (docs/operations.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from apps.queues.models import SyncRun
from apps.queues.tasks import reconcile_task
from testkit.factories import make_queue, make_team, quota
from testkit.waiting import wait_until
from testkit.workers import shared_database_url

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def pool_children(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in children]


@pytest.fixture
def prefork_worker(tmp_path, private_redis, cluster):
    env = {
        **os.environ,
        "DATABASE_URL": shared_database_url(),
        "REDIS_URL": private_redis.url,
        "KUBECONFIG": str(cluster.kubeconfig),
        "QM_CLUSTER_SYNC": "true",
        "QM_KUBE_TIMEOUT_SECONDS": "60",
        "QM_DATA_DIR": str(tmp_path / "worker-data"),
    }
    argv = [sys.executable, "-m", "celery", "-A", "portal", "worker", "--pool", "prefork"]
    argv += ["--concurrency", "1", "--loglevel", "INFO", "--without-gossip", "--without-mingle"]
    with open(tmp_path / "worker.log", "w") as log:
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    yield process
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def test_a_task_killed_mid_run_is_redone(catalog, cluster, prefork_worker, tmp_path, settings):
    settings.QM_CLUSTER_SYNC = False  # no automatic trigger: this test sends the one task
    make_queue(catalog, make_team(catalog, "vision"), quotas=[quota("h100", "16")])
    cluster.fault(verb="create", resource="localqueues", latencySeconds=30.0, count=0)
    reconcile_task.delay(trigger="manual")
    wait_until(lambda: cluster.get("ClusterQueue", "vision"), timeout=60)
    (child,) = pool_children(prefork_worker.pid)
    os.kill(child, signal.SIGKILL)  # mid-run: the LocalQueue create hangs
    cluster.clear_faults()
    assert cluster.get("LocalQueue", "vision", "team-vision") is None
    assert not SyncRun.objects.exists()  # the run never finished

    wait_until(lambda: cluster.get("LocalQueue", "vision", "team-vision"), timeout=90)
    wait_until(lambda: SyncRun.objects.filter(trigger="manual", error="").exists(), timeout=60)
    log = (tmp_path / "worker.log").read_text()
    assert "SIGKILL" in log and prefork_worker.poll() is None
