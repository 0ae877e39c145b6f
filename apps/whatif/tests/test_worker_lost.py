"""A what-if whose worker is killed mid-replay is failed by the sweep within the
threshold, not an hour later: with the production settings and the sweep beat runs,
within two minutes of the kill; a replay held on a live worker for longer than the
threshold is not swept, because its heartbeat goes on, and completes when released.

The held replay waits on an event, not on a race: the test locks the history table
the replay reads, so the replay blocks there (inside its heartbeat) until the test
lets go; the sweep runs at the instant of a heartbeat the test saw, one that came
more than a threshold after the replay's first.

Real worker processes on Redis and the test database; the heartbeat and the
threshold are made small through the same settings production uses.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.db import connection

from apps.queues.reconcile.desired import load_state
from apps.reports.models import WorkloadRecord
from apps.whatif import services
from apps.whatif.choices import RunStatus
from apps.whatif.models import Replay, WhatIfRun
from apps.whatif.policies import policy_objects
from apps.whatif.tasks import sweep_stuck_whatifs_task
from testkit.history_traces import history_trace, record_history
from testkit.paths import REPO
from testkit.waiting import wait_until
from testkit.workers import shared_database_url

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]
# Five missed beats make a replay stuck, as in production (10 s beats: 50 s).
HEARTBEAT_SECONDS, HEARTBEAT_MISSES = 0.03, 5
STUCK_AFTER_SECONDS = HEARTBEAT_SECONDS * HEARTBEAT_MISSES
# What docs/whatif.md promises for a worker killed mid-replay, as a deadline.
FAILED_WITHIN_SECONDS = 120
# Enough history that one replay computes for several thresholds (about 0.6 s on a busy
# two-core machine; more history would make recording it, in the test process, take minutes).
DAYS, PER_DAY = 3, 400


@pytest.fixture
def start_worker(tmp_path):
    """Starts worker processes (solo pool: the replay runs in it), each in its own process
    group; with ``beat`` it runs beat's schedule too, as `make run`'s worker does."""
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.skip("needs PostgreSQL and REDIS_URL")
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    started: list[subprocess.Popen] = []

    def start(*, beat: bool = False, **extra: str) -> subprocess.Popen:
        env = {
            **os.environ,
            "DATABASE_URL": shared_database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "QM_CLUSTER_SYNC": "false",
            "QM_DATA_DIR": str(tmp_path),
            **extra,
        }
        argv = [sys.executable, "-m", "celery", "-A", "portal", "worker", "--pool", "solo"]
        argv += ["--loglevel", "WARNING", "--without-mingle", "--without-gossip"]
        argv += ["-n", f"whatif-lost-{os.getpid()}-{len(started)}@%h"]
        if beat:
            argv += ["-B", "--schedule", str(tmp_path / f"beat-{len(started)}")]
        started.append(subprocess.Popen(argv, cwd=REPO, env=env, start_new_session=True))
        return started[-1]

    yield start
    for process in started:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)


@pytest.fixture
def solo_worker(start_worker):
    """A worker with a fast heartbeat and threshold, made small through the settings."""
    return start_worker(
        QM_WHATIF_HEARTBEAT_SECONDS=str(HEARTBEAT_SECONDS),
        QM_WHATIF_HEARTBEAT_MISSES=str(HEARTBEAT_MISSES),
    )


def _run_on_history(admin, settings, days: int, per_day: int):
    settings.QM_WHATIF_HEARTBEAT_SECONDS = HEARTBEAT_SECONDS
    settings.QM_WHATIF_HEARTBEAT_MISSES = HEARTBEAT_MISSES
    record_history(
        policy_objects(load_state(), fair_sharing=False), history_trace(days=days, per_day=per_day)
    )
    return lambda: services.request_whatif({"vision": {"fair_weight": "2"}}, actor=admin, days=days)


@pytest.fixture
def slow_run(queue, other_queue, admin, settings):
    return _run_on_history(admin, settings, DAYS, PER_DAY)


@pytest.fixture
def small_run(queue, other_queue, admin, settings):
    """Held on a lock, a replay needs no history to be slow."""
    return _run_on_history(admin, settings, 1, 20)


def _swept_or_finished(run_id: int) -> WhatIfRun | None:
    sweep_stuck_whatifs_task()  # what beat runs every minute, here as often as we look
    run = WhatIfRun.objects.get(pk=run_id)
    return run if run.is_finished else None


def test_a_run_whose_worker_is_killed_mid_replay_is_failed(slow_run, solo_worker):
    run = slow_run()
    computing = Replay.objects.filter(run=run, status="pending", heartbeat_at__isnull=False)
    wait_until(computing.exists, timeout=120, interval=0.01)
    os.killpg(solo_worker.pid, signal.SIGKILL)  # the OOM killer's way: no clean shutdown
    solo_worker.wait(timeout=10)

    failed = wait_until(lambda: _swept_or_finished(run.pk), timeout=60)
    assert failed.status == RunStatus.FAILED
    assert failed.error.startswith("its worker stopped (no progress since ")
    assert failed.error.endswith("); run it again")
    assert Replay.objects.filter(run=run, status="pending").exists()


def test_with_the_production_settings_the_run_is_failed_within_two_minutes_of_the_kill(
    small_run, history_locked, start_worker
):
    """Nothing made small in the workers: the default heartbeat and misses, and the sweep
    beat runs in the worker that replaces the killed one (as `make run`'s supervisor does)."""
    first = start_worker(beat=True)
    run = small_run()
    computing = Replay.objects.filter(run=run, status="pending", heartbeat_at__isnull=False)
    wait_until(computing.exists, timeout=120)  # held on the history lock, beating

    os.killpg(first.pid, signal.SIGKILL)  # the worker and its beat
    first.wait(timeout=10)
    killed_at = time.monotonic()
    history_locked()  # the dead worker's query may run now: nobody reads its answer
    start_worker(beat=True)

    failed = wait_until(
        lambda: WhatIfRun.objects.filter(pk=run.pk, status=RunStatus.FAILED).first(),
        timeout=FAILED_WITHIN_SECONDS - (time.monotonic() - killed_at),
        interval=0.5,
    )
    assert failed.error.startswith("its worker stopped (no progress since ")


@pytest.fixture
def history_locked():
    """Holds an ACCESS EXCLUSIVE lock on the recorded history until ``release()``:
    a replay that starts reading it waits there (nothing else of a run reads it)."""
    import psycopg

    db = connection.settings_dict
    locker = psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"] or "postgres",
        dbname=db["NAME"],
    )
    table = connection.ops.quote_name(WorkloadRecord._meta.db_table)
    locker.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
    yield locker.rollback
    locker.close()


def _beats_past_the_threshold(run_id: int, first: dict) -> tuple | None:
    """(key, latest heartbeat) once a replay's heartbeat came a threshold after its first."""
    for key, beat in Replay.objects.filter(run_id=run_id, status="pending").values_list(
        "key", "heartbeat_at"
    ):
        if beat is None:
            continue
        first.setdefault(key, beat)
        if (beat - first[key]).total_seconds() > STUCK_AFTER_SECONDS:
            return key, beat
    return None


def test_a_replay_held_past_the_threshold_on_a_live_worker_is_not_swept(
    small_run, history_locked, solo_worker
):
    run = small_run()
    first: dict = {}
    key, beat = wait_until(lambda: _beats_past_the_threshold(run.pk, first), timeout=180)
    # Without its heartbeat this replay would be stuck: its first stamp is stale by now.
    assert first[key] < beat - timedelta(seconds=STUCK_AFTER_SECONDS)

    assert services.fail_stuck_whatifs(now=beat) == []
    assert WhatIfRun.objects.get(pk=run.pk).status == RunStatus.RUNNING
    assert Replay.objects.get(run=run, key=key).status == "pending"  # still held

    history_locked()  # let the replay read its history
    finished = wait_until(
        lambda: WhatIfRun.objects.filter(pk=run.pk, finished_at__isnull=False).first(),
        timeout=300,
    )
    assert finished.status == RunStatus.DONE, finished.error
    assert Replay.objects.get(run=run, key=key).status == "done"
