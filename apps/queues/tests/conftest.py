"""Fixtures of the reconciler tests: the simulated cluster, a Celery worker, a policy."""

from __future__ import annotations

import os

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection

from apps.queues.tests.capacity_kit import three_a100_queues
from apps.queues.tests.cluster import SimCluster, Worker, shared_database_url
from apps.queues.tests.factories import make_queue, make_team, quota
from apps.queues.tests.real_cluster import RealCluster


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "postgres_only: needs PostgreSQL, Redis and a Celery worker (skipped on SQLite)"
    )


@pytest.fixture
def cluster(request, tmp_path, settings):
    """The cluster the portal is pointed at: by default a fresh simulated API server
    subprocess (no Kueue controller); ``real`` is the session's real control plane with
    the real Kueue, wiped after the test."""
    settings.QM_CLUSTER_SYNC = True
    settings.KUEUE_API_VERSION = "v1beta2"
    settings.QM_KUBE_TIMEOUT_SECONDS = 5.0
    if getattr(request, "param", "sim") == "real":
        plane, portal_kubeconfig = request.getfixturevalue("real_control_plane")
        real = RealCluster(plane, portal_kubeconfig)
        settings.KUBECONFIG = str(portal_kubeconfig)
        yield real
        real.wipe()
        return
    sim = SimCluster(tmp_path, controller=False).start()
    settings.KUBECONFIG = str(sim.kubeconfig)
    yield sim
    sim.stop()


@pytest.fixture
def policy(catalog, team, other_team, queue, other_queue):
    """Two teams with a queue each in cohort ``research``, plus a shared queue."""
    shared = make_queue(catalog, None, name="shared-burst", quotas=[quota("a100", "4")])
    return {"queue": queue, "other_queue": other_queue, "shared": shared}


@pytest.fixture
def three_teams(catalog, team, other_team):
    """Issue 28's a100 setup: vision, nlp and speech hold 8 of the 32 a100 GPUs each."""
    return three_a100_queues(catalog, team, other_team)


@pytest.fixture
def worker(cluster, tmp_path, transactional_db):
    """A real Celery worker on Redis, reading the test database, pointed at ``cluster``."""
    if connection.vendor != "postgresql" or not django_settings.REDIS_URL:
        pytest.skip("needs PostgreSQL and REDIS_URL")
    redis.Redis.from_url(django_settings.REDIS_URL).flushdb()
    env = {
        **os.environ,
        "DATABASE_URL": shared_database_url(),
        "KUBECONFIG": str(cluster.kubeconfig),
        "QM_CLUSTER_SYNC": "true",
        "QM_RECONCILE_BACKOFF_MAX_SECONDS": "2",
        "QM_KUBE_TIMEOUT_SECONDS": "3",
        "QM_DATA_DIR": str(tmp_path / "worker-data"),
    }
    process = Worker(env, tmp_path).start()
    yield process
    process.stop()


@pytest.fixture
def make_team_with(catalog):
    return lambda slug, **kwargs: make_team(catalog, slug, **kwargs)


def pytest_addoption(parser):
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite apps/queues/tests/golden/*.yaml from the current renderer",
    )
