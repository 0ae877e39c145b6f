"""Private dependencies for fault tests: a throwaway redis-server on a free port
(never the shared one), the simulated cluster, and Celery workers on them."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import kombu.pools
import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection

from portal.celery import app as celery_app
from testkit.ports import free_port
from testkit.sim_cluster import SimCluster
from testkit.waiting import wait_until
from testkit.workers import Worker, shared_database_url


class PrivateRedis:
    """redis-server on 127.0.0.1:<free port>, no persistence; stop() and start() again."""

    def __init__(self, workdir: Path):
        self.workdir, self.port = workdir, free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--save", "", "--appendonly", "no", "--dir", str(self.workdir)]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self._answers, timeout=10)
        return self

    def _answers(self) -> bool:
        try:
            return redis.Redis.from_url(self.url, socket_timeout=0.5).ping()
        except redis.exceptions.ConnectionError:
            return False

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)  # a crash, not a clean shutdown
            self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def private_redis(tmp_path, settings):
    if not shutil.which("redis-server"):
        pytest.fail("redis-server is missing: scripts/services.sh needs Debian's redis-server")
    if connection.vendor != "postgresql":
        pytest.skip("fault tests share the database with worker processes: PostgreSQL only")
    server = PrivateRedis(tmp_path).start()
    settings.REDIS_URL = server.url
    original = celery_app.conf.broker_url, celery_app.conf.result_backend
    celery_app.conf.broker_url = celery_app.conf.result_backend = server.url
    _reset_connections()
    yield server
    celery_app.conf.broker_url, celery_app.conf.result_backend = original
    _reset_connections()
    server.stop()


def _reset_connections() -> None:
    """Forget pooled broker connections and the result backend, so the next use
    connects to the broker now configured."""
    # kombu keeps its pools in process-wide registries keyed by broker URL: closing
    # only Celery's handle would leave a closed pool there for the next test to get.
    kombu.pools.reset()
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    celery_app.__dict__.pop("backend", None)
    celery_app._local.__dict__.pop("backend", None)


@pytest.fixture
def cluster(tmp_path, settings):
    sim = SimCluster(tmp_path).start()
    settings.KUBECONFIG, settings.QM_CLUSTER_SYNC = str(sim.kubeconfig), True
    settings.KUEUE_API_VERSION, settings.QM_KUBE_TIMEOUT_SECONDS = "v1beta2", 5.0
    yield sim
    sim.stop()


@pytest.fixture
def start_worker(tmp_path, private_redis, cluster):
    """Start Celery workers on the private Redis; all stopped at the end."""
    started: list[Worker] = []

    def start(**extra: str) -> Worker:
        env = {
            **os.environ,
            "DATABASE_URL": shared_database_url(),
            "REDIS_URL": private_redis.url,
            "KUBECONFIG": str(cluster.kubeconfig),
            "QM_CLUSTER_SYNC": "true",
            "QM_RECONCILE_BACKOFF_MAX_SECONDS": "2",
            "QM_KUBE_TIMEOUT_SECONDS": "3",
            "QM_DATA_DIR": str(tmp_path / f"worker-{len(started)}"),
            **extra,
        }
        workdir = tmp_path / f"w{len(started)}"
        workdir.mkdir()
        worker = Worker(env, workdir).start()
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


__all__ = ["django_settings"]
