"""PostgreSQL drops the portal's connections (a restart or failover looks like this
to the app): the next request to gunicorn and the next task in a worker succeed on
fresh connections. Only our own test database's backends are terminated; the
shared server is never stopped."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from apps.queues.models import ChangeRequest
from apps.queues.tasks import expire_stale_change_requests_task
from testkit.factories import quota, set_policy
from testkit.ports import free_port
from testkit.waiting import wait_until
from testkit.workers import shared_database_url

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def terminate_backends() -> int:
    """Terminate every backend on the test database but this one; ours reconnects next."""
    url = shared_database_url().replace("postgres://", "postgresql://", 1)
    with psycopg.connect(url, autocommit=True) as db:
        rows = db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    connection.close()  # the test's own connection was one of them
    return len(rows)


@pytest.fixture
def gunicorn(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": shared_database_url(),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": "1",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "QM_DATA_DIR": str(tmp_path / "data"),
    }
    argv = [sys.executable, "-m", "gunicorn", "-c", "python:portal.gunicorn"]
    argv += ["portal.wsgi:application"]
    with open(tmp_path / "gunicorn.log", "w") as log:
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    wait_until(lambda: _status(f"{base}/healthz") == 200, timeout=60)
    yield base
    process.terminate()
    process.wait(timeout=20)


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0


def test_gunicorn_serves_again_right_after_its_connections_are_killed(gunicorn, queue):
    for _ in range(3):  # warm up every thread's persistent connection
        assert _status(f"{gunicorn}/api/schema/") == 200
    assert terminate_backends() >= 1
    statuses = [_status(f"{gunicorn}/readyz") for _ in range(8)]
    assert statuses == [200] * 8  # health checks notice the dead connection and reconnect


def test_a_worker_recovers_after_its_connections_are_killed(
    queue, lead, envelope, private_redis, start_worker
):
    start_worker()
    assert expire_stale_change_requests_task.delay().get(timeout=60) == 0
    terminate_backends()
    request = set_policy(queue, lead, quotas=[quota("h100", "40")]).change_request
    ChangeRequest.objects.filter(pk=request.pk).update(
        created_at=timezone.now() - timedelta(days=30)
    )
    assert expire_stale_change_requests_task.delay().get(timeout=60) == 1


def test_the_health_check_asks_the_socket_and_notices_a_killed_backend():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    connection.ensure_connection()
    backend = connection.connection.info.backend_pid

    def checked_at_request_start():
        connection.health_check_done = False  # what every request's start does
        connection.close_if_health_check_failed()
        return connection.connection

    assert checked_at_request_start().info.backend_pid == backend  # a live one is kept
    url = shared_database_url().replace("postgres://", "postgresql://", 1)
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("SELECT pg_terminate_backend(%s)", [backend])
    wait_until(lambda: checked_at_request_start() is None, timeout=10)
    with connection.cursor() as cursor:  # and the next query reconnects
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != backend
