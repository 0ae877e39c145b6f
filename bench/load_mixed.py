"""Mixed load against gunicorn on loopback: N concurrent users for a bounded time.

    .venv/bin/python bench/load_mixed.py                     # 200 users, 60 s
    .venv/bin/python bench/load_mixed.py --users 50 --seconds 20

Prepares its own PostgreSQL database (``--database-url``, default ``qm_bench`` on
127.0.0.1), migrated and loaded with the demo plus one scientist per virtual user
(a session and an API token each), starts ``gunicorn -c python:portal.gunicorn``
on a free loopback port, runs the users (threads, keep-alive connections), stops
gunicorn and prints throughput, p50/p99 per request kind and the error count.
Every request must answer 2xx/3xx; anything else, or a transport error, counts.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (kind, weight): a user's next request is drawn from this mix.
MIX = [
    ("page:overview", 20),
    ("page:queue", 20),
    ("page:team", 10),
    ("api:queues", 20),
    ("api:queue", 10),
    ("api:change-requests", 10),
    ("api:audit", 5),
    ("healthz", 5),
]

SETUP = r"""
import json, sys
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.auth import SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY
from apps.accounts.services import issue_api_token
from apps.queues import services
from portal.demo.policy import load_demo
from apps.queues.models import Queue, Team
User = get_user_model()
if not User.objects.filter(username="admin").exists():
    load_demo()
admin = User.objects.get(username="admin")
teams = list(Team.objects.filter(queues__isnull=False).distinct().order_by("slug"))
users = []
for i in range(int(sys.argv[1])):
    user, _ = User.objects.get_or_create(username=f"bench-{i:03d}")
    team = teams[i % len(teams)]
    services.add_membership(team=team, user=user, role="scientist", actor=admin)
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    queue = team.queues.order_by("pk").first()
    users.append({"session": session.session_key, "token": issue_api_token(user, "bench", actor=user)[1],
                  "team": team.slug, "queue": queue.pk, "version": queue.version})
print("BENCH" + json.dumps(users))
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def prepare(database_url: str, users: int, env: dict) -> list[dict]:
    import psycopg

    admin_url, name = database_url.rsplit("/", 1)
    with psycopg.connect(
        f"{admin_url}/postgres".replace("postgres://", "postgresql://", 1), autocommit=True
    ) as db:
        if not db.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            db.execute(f'CREATE DATABASE "{name}"')
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    out = subprocess.run(
        [sys.executable, "-c", "import django;django.setup();" + f"exec({SETUP!r})", str(users)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    out = out.stdout
    return json.loads(out.split("BENCH", 1)[1])


class User(threading.Thread):
    def __init__(self, port: int, me: dict, deadline: float, results: dict, lock: threading.Lock):
        super().__init__(daemon=True)
        self.port, self.me, self.deadline, self.results, self.lock = (
            port,
            me,
            deadline,
            results,
            lock,
        )
        self.random = random.Random(me["session"])
        self.connection: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: dict | None, api: bool) -> int:
        headers = {"Host": "127.0.0.1"}
        if api:
            headers["Authorization"] = f"Token {self.me['token']}"
        else:
            headers["Cookie"] = f"sessionid={self.me['session']}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.connection is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        self.connection.request(method, path, data, headers)
        response = self.connection.getresponse()
        response.read()
        if response.getheader("Connection", "").lower() == "close":
            self.connection.close()
            self.connection = None
        return response.status

    def target(self, kind: str) -> tuple[str, str, dict | None, bool]:
        me = self.me
        return {
            "page:overview": ("GET", "/", None, False),
            "page:queue": ("GET", f"/queues/{me['queue']}/", None, False),
            "page:team": ("GET", f"/teams/{me['team']}/", None, False),
            "api:queues": ("GET", "/api/v1/queues/", None, True),
            "api:queue": ("GET", f"/api/v1/queues/{me['queue']}/", None, True),
            "api:change-requests": ("GET", "/api/v1/change-requests/", None, True),
            "api:audit": ("GET", "/api/v1/audit/?page_size=20", None, True),
            "healthz": ("GET", "/healthz", None, False),
        }[kind]

    def run(self) -> None:
        kinds, weights = zip(*MIX, strict=True)
        while time.monotonic() < self.deadline:
            kind = self.random.choices(kinds, weights)[0]
            method, path, body, api = self.target(kind)
            started = time.perf_counter()
            try:
                status = self.request(method, path, body, api)
                ok = 200 <= status < 400
            except (OSError, http.client.HTTPException) as exc:
                status, ok = repr(exc)[:80], False
                self.connection = None
            elapsed = time.perf_counter() - started
            with self.lock:
                self.results[kind].append(elapsed)
                if not ok:
                    self.results["errors"].append((kind, status))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/qm_bench")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "DATABASE_URL": args.database_url,
        "REDIS_URL": "",
        "QM_CLUSTER_SYNC": "false",
        "QM_DATA_DIR": "/tmp/qm-bench-data",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": str(args.workers),
        "GUNICORN_THREADS": str(args.threads),
        "PROMETHEUS_MULTIPROC_DIR": "/tmp/qm-bench-metrics",
        "LOG_LEVEL": "WARNING",
    }
    users = prepare(args.database_url, args.users, env)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "python:portal.gunicorn",
            "--access-logfile",
            "/dev/null",
            "portal.wsgi:application",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("gunicorn did not start") from None
                time.sleep(0.2)
        results: dict[str, list] = defaultdict(list)
        lock = threading.Lock()
        started = time.monotonic()
        threads = [User(port, me, started + args.seconds, results, lock) for me in users]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(args.seconds + 60)
        wall = time.monotonic() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    report(results, wall, args)
    return 0 if not results["errors"] else 1


def report(results: dict, wall: float, args) -> None:
    everything = [v for kind, values in results.items() if kind != "errors" for v in values]
    print(
        f"{args.users} users, {wall:.1f} s, gunicorn {args.workers} workers x {args.threads} threads"
    )
    print(
        f"requests {len(everything)}  throughput {len(everything) / wall:.0f} req/s  errors {len(results['errors'])}"
    )
    print(
        f"all: p50 {percentile(everything, 0.5) * 1000:.0f} ms  p99 {percentile(everything, 0.99) * 1000:.0f} ms"
    )
    for kind, _ in MIX:
        values = results[kind]
        print(
            f"  {kind:20} n={len(values):6}  p50 {percentile(values, 0.5) * 1000:6.0f} ms  p99 {percentile(values, 0.99) * 1000:6.0f} ms"
        )
    if results["errors"]:
        print("first errors:", results["errors"][:5])


if __name__ == "__main__":
    sys.exit(main())
