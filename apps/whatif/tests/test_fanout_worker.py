"""The replays fan out to a real Celery worker through Redis and are gathered in the database."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

from apps.queues.reconcile.desired import load_state
from apps.whatif import services
from apps.whatif.choices import RunStatus
from apps.whatif.models import WhatIfRun
from apps.whatif.policies import policy_objects
from apps.whatif.tests.conftest import history_trace, record_history

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def worker(tmp_path):
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.skip("needs PostgreSQL and REDIS_URL")
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "QM_CLUSTER_SYNC": "false",
        "QM_KUEUE_FAIR_SHARING": "true",
        "QM_DATA_DIR": str(tmp_path),
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "portal",
        "worker",
        "--pool",
        "prefork",
        "--concurrency",
        "2",
        "--loglevel",
        "WARNING",
        "--without-mingle",
        "--without-gossip",
        "-n",
        f"whatif-{os.getpid()}@%h",
    ]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    yield process
    process.terminate()
    process.wait(timeout=30)


def _wait_for_finish(run_id: int, seconds: float) -> WhatIfRun:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = WhatIfRun.objects.get(pk=run_id)
        if run.is_finished:
            return run
        time.sleep(0.2)
    raise AssertionError(f"what-if {run_id} still {run.status} after {seconds} s")


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_worker_runs_every_replay_and_gathers_them(queue, other_queue, admin, worker, settings):
    settings.QM_KUEUE_FAIR_SHARING = True
    record_history(policy_objects(load_state(), fair_sharing=True), history_trace())
    run = services.request_whatif({"vision": {"fair_weight": "2"}}, actor=admin)
    finished = _wait_for_finish(run.pk, 120)
    assert finished.status == RunStatus.DONE, finished.error
    # current + proposed + two nudges per queue (vision, nlp)
    assert finished.replays_total == finished.replays_done == 6
    assert set(finished.replays.values_list("status", flat=True)) == {"done"}
    assert finished.result["sensitivity"]["checked"] == 4
    assert worker.poll() is None
