"""Fixtures of the what-if tests: a recorded history of two days and a real Celery worker."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from celery import current_app
from django.conf import settings
from django.db import connection
from django.utils import timezone

from apps.jobs.tests.conftest import pool, sim, template, tiers  # noqa: F401 (fixtures)
from apps.queues.tests.cluster import shared_database_url
from apps.reports.services.workload_records import record_workload_events
from apps.whatif.replay.manifests import arrivals
from apps.whatif.replay.synthetic import Load, synthetic_trace
from kueuemodel import Simulation

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def eager_celery():
    """Tasks sent with .delay() run inline (tests without a worker only)."""
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = False


@pytest.fixture
def worker(tmp_path):
    """A real Celery worker (2 processes) on Redis and the test database, fair sharing on."""
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.skip("needs PostgreSQL and REDIS_URL")
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    env = {
        **os.environ,
        "DATABASE_URL": shared_database_url(),
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


class _Recorder(list):
    """Engine transition log that snapshots each Workload as a watch would see it."""

    def append(self, item) -> None:
        super().append(("MODIFIED", copy.deepcopy(item[2].obj)))


def record_history(objects: list[dict], trace) -> int:
    """Run ``trace`` through the engine under ``objects`` and record it like the watcher does."""
    simulation = Simulation(objects, start_ms=min(w.created_ms for w in trace), record_events=False)
    recorder = _Recorder()
    simulation.cluster.history = recorder
    simulation.add_arrivals(arrivals(trace))
    simulation.run(until_ms=round(time.time() * 1000))
    created = [("ADDED", copy.deepcopy(w)) for _, w in arrivals(trace)]
    # The engine logs a finish before it writes Finished=True: the last look shows it.
    final = [("MODIFIED", copy.deepcopy(w)) for w in simulation.workloads()]
    return record_workload_events(created + list(recorder) + final)


def history_trace(days: int = 2, seed: int = 5, per_day: float = 30):
    start = int(timezone.now().timestamp() - days * 86400) * 1000
    loads = [
        Load(t, t, f"team-{t}", per_day=per_day, gpus=(1, 2, 4), minutes=(30, 150))
        for t in ("vision", "nlp")
    ]
    return synthetic_trace(loads, start_ms=start, days=days, seed=seed)
