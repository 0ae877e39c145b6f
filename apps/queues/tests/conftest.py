"""Fixtures of the reconciler tests: a Celery worker pointed at ``cluster``, a policy."""

from __future__ import annotations

import os

import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection

from testkit.capacity import three_a100_queues
from testkit.factories import make_queue, make_team, quota
from testkit.workers import Worker, shared_database_url


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "postgres_only: needs PostgreSQL, Redis and a Celery worker (skipped on SQLite)"
    )


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
