"""gunicorn's configuration: ``gunicorn -c python:portal.gunicorn portal.wsgi:application``.

Sets up prometheus-client's multiprocess mode before any worker imports the app,
so /metrics adds up the counters of every worker process, and forgets a worker's
live gauges when it exits.
"""

import os
import shutil
import sys
import tempfile

from portal.env import ConfigError, env_float, env_int, env_networks, env_str

bind = env_str("GUNICORN_BIND", "0.0.0.0:8000")
workers = env_int("GUNICORN_WORKERS", 3)
# Two threads, not more: a request spends ~1.5 ms running Python and ~0.1 ms waiting for
# PostgreSQL, so extra threads add no parallelism, only GIL contention. Every wait on
# the database hands the GIL over and takes it back behind the other threads; with 4
# threads the status poll's p99 was twice its p50 (75-95 ms), with 2 it stays within
# a third of it (docs/benchmarks.md). Scale with workers (about two per core) instead.
threads = env_int("GUNICORN_THREADS", 2)
worker_class = "gthread"
# How long a running thread keeps the GIL from one that wants it (Python's default: 5 ms).
# A request whose answer from PostgreSQL has arrived waits up to this long behind the other
# thread to run again. Measured beside its floor, 0.5 ms neither clearly helped the status
# poll's tail nor kept absolute throughput (docs/benchmarks.md), so Python's 5 ms stays.
switch_interval_ms = env_float("GUNICORN_SWITCH_INTERVAL_MS", 5.0)
if not 0 < switch_interval_ms <= 100:
    raise ConfigError("GUNICORN_SWITCH_INTERVAL_MS must be above 0 and at most 100")
timeout = env_int("GUNICORN_TIMEOUT", 30)
graceful_timeout = 20
keepalive = 5
# Recycle workers now and then, so a slow leak can't grow without bound. Not every
# few thousand requests: a worker restart re-imports the app (about a CPU-second) and
# drops its keep-alive clients, which at a few hundred polls a second was every few
# seconds and the worst of the status API's tail latency.
max_requests = 100_000
max_requests_jitter = 10_000
accesslog = "-"
# Only the proxies the portal itself trusts with X-Forwarded-For (core.client_address)
# may tell gunicorn the scheme; empty: nobody. Read here too, as gunicorn reads no Django settings.
forwarded_allow_ips = ",".join(env_networks("QM_TRUSTED_PROXIES", []))

_metrics_dir = env_str("PROMETHEUS_MULTIPROC_DIR", "") or os.path.join(
    tempfile.gettempdir(), "quartermaster-prometheus"
)


def on_starting(server) -> None:
    # Set in the master before any worker forks and imports prometheus-client.
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_dir
    # Files left by a previous master would be added to this one's counters.
    shutil.rmtree(_metrics_dir, ignore_errors=True)
    os.makedirs(_metrics_dir, exist_ok=True)


def child_exit(server, worker) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def post_fork(server, worker) -> None:
    sys.setswitchinterval(switch_interval_ms / 1000)
