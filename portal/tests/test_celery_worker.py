"""A real task sent through Redis and run by a separate worker process."""

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from apps.queues.models import ChangeRequest
from apps.queues.tasks import expire_stale_change_requests_task
from apps.queues.tests.cluster import shared_database_url
from apps.queues.tests.factories import quota, set_policy

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def worker():
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL: the embedded broker is not shared between processes in tests")
    env = {**os.environ, "DATABASE_URL": shared_database_url(), "REDIS_URL": settings.REDIS_URL}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "portal",
            "worker",
            "--pool",
            "solo",
            "--loglevel",
            "WARNING",
            "--without-mingle",
            "--without-gossip",
            "-n",
            f"test-{os.getpid()}@%h",
        ],
        cwd=ROOT,
        env=env,
    )
    yield process
    process.terminate()
    process.wait(timeout=20)


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_worker_expires_stale_change_requests(queue, lead, envelope, worker):
    request = set_policy(queue, lead, quotas=[quota("h100", "40")]).change_request
    ChangeRequest.objects.filter(pk=request.pk).update(
        created_at=timezone.now() - timedelta(days=30)
    )
    result = expire_stale_change_requests_task.delay()
    assert result.get(timeout=60) == 1
    request.refresh_from_db()
    assert request.status == "expired"
    assert worker.poll() is None  # it was the worker process, still running, that did it
