"""Notebook API under load: gunicorn (2 workers) on loopback, an asyncio HTTP/1.1 client.

Measures (figures, with the conditions of each run, go to docs/benchmarks.md by hand):
  1. GET /api/v1/notebooks/{id}/ throughput and p50/p99 at a fixed concurrency;
  2. POST /api/v1/notebooks/ latency p50/p99 (sequential, each with an Idempotency-Key);
  3. request → Workload exists in the simulated cluster, p50/p95 (a real Celery worker
     on Redis creates the StatefulSet; the simulator's controller makes the Workload);
  4. how closely status follows the cluster: the notebook's pod turns Ready in the
     simulated cluster → the API says ``ready`` (the worker runs the status watch).

Needs PostgreSQL and Redis; uses (and recreates) a scratch database:
``.venv/bin/python bench/notebook_api.py [--seconds 10] [--concurrency 16] [--creates 60]
[--follows 20]`` (``--follows 0`` skips 4., e.g. for code without the watch).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ADMIN_DB = "postgres://postgres@127.0.0.1:5432/postgres"
BENCH_DB = "qm_bench_notebooks"
IMAGE = "registry.example.com/notebooks/pytorch:2.4"


def _recreate_database() -> str:
    import psycopg

    with psycopg.connect(ADMIN_DB, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")
    return f"postgres://postgres@127.0.0.1:5432/{BENCH_DB}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_cluster(workdir: Path) -> tuple[subprocess.Popen, Path, str]:
    kubeconfig = workdir / "kubeconfig"
    argv = [sys.executable, "-m", "simcluster", "serve", "--port", "0"]
    process = subprocess.Popen(
        [*argv, "--kubeconfig-out", str(kubeconfig)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    match = re.search(r"listening on (\S+)", process.stdout.readline())
    if not match:
        raise SystemExit("simcluster did not start")
    return process, kubeconfig, match.group(1)


def _set_up(workdir: Path) -> tuple[subprocess.Popen, str, dict]:
    """A fresh scratch database, migrated; the simulated cluster; this process set up
    for Django. Returns the cluster process, its URL and the environment for children."""
    db_url = _recreate_database()
    cluster, kubeconfig, sim_url = _start_cluster(workdir)
    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "KUBECONFIG": str(kubeconfig),
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/14"),
        "QM_API_RATE_USER": "10000000/min",
        "QM_DATA_DIR": str(workdir / "data"),
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "QM_RECONCILE_DEBOUNCE_SECONDS": "60",
        "DEBUG": "false",
    }
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return cluster, sim_url, env


def _populate() -> dict:
    """Catalog, a team with a queue, the pool, a user with a token, nodes in the cluster."""
    from apps.accounts.services import issue_api_token
    from apps.jobs.models import InteractivePool, NotebookImage, NotebookProfile, PoolFlavor
    from apps.jobs.services.pool import save_setting
    from apps.queues import services
    from apps.queues.models import PriorityTier, ResourceFlavor
    from apps.queues.reconcile.run import reconcile
    from core.roles import TeamRole
    from testkit.factories import UserFactory, make_admin, make_flavor, make_team

    admin = make_admin()
    make_flavor(admin, "h100", {"nvidia.com/gpu": "4096"})
    services.save_priority_tier(name="interactive", value=1000, actor=admin)
    team = make_team(admin, "vision")
    user = UserFactory(username="bench")
    services.add_membership(team=team, user=user, role=TeamRole.SCIENTIST, actor=admin)
    pool = InteractivePool(
        priority_tier=PriorityTier.objects.get(name="interactive"),
        max_gpus_per_user=100_000,
        max_notebooks_per_user=100_000,
        default_ttl_hours=8,
    )
    save_setting(pool, actor=admin, created=True)
    flavor = ResourceFlavor.objects.get(name="h100")
    save_setting(
        PoolFlavor(pool=pool, flavor=flavor, gpus=4096, cpu="100000", memory="1000Ti"),
        actor=admin,
        created=True,
    )
    save_setting(NotebookImage(image=IMAGE), actor=admin, created=True)
    save_setting(
        NotebookProfile(name="small", cpu="1", memory="1Gi", is_default=True),
        actor=admin,
        created=True,
    )
    reconcile(trigger="manual")
    _, raw = issue_api_token(user, "bench", actor=user)
    return {"token": raw}


def _add_nodes(count: int) -> None:
    from core.kube import KubeClient, ResourceRef

    ref = ResourceRef("", "v1", "nodes", "Node", False)
    res = {"cpu": "100000", "memory": "1000Ti", "pods": "10000", "nvidia.com/gpu": "64"}
    with KubeClient() as kube:
        kube.enforce_rbac = False
        for i in range(count):
            kube.create(ref, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}})
            kube._call(
                "PATCH",
                ref,
                "patch",
                ref.path("", f"n{i}") + "/status",
                body={"status": {"capacity": res, "allocatable": res}},
                content_type="application/merge-patch+json",
            )


# ----- a minimal keep-alive HTTP/1.1 client ------------------------------------------------


class Connection:
    def __init__(self, port: int, token: str):
        self.port, self.token = port, token
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def request(
        self, method: str, path: str, body: dict | None = None, headers: dict | None = None
    ) -> tuple[int, bytes]:
        data = json.dumps(body).encode() if body is not None else b""
        lines = [
            f"{method} {path} HTTP/1.1",
            "Host: 127.0.0.1",
            f"Authorization: Token {self.token}",
            f"Content-Length: {len(data)}",
            "Content-Type: application/json",
            "Connection: keep-alive",
        ]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length, close = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
            if name.lower() == "connection" and "close" in value.lower():
                close = True
        payload = await self.reader.readexactly(length) if length else b""
        if close:  # the server will not reuse the socket
            self.writer.close()
            await self.open()
        return status, payload


async def _get_load(port: int, token: str, path: str, seconds: float, concurrency: int):
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds

    async def worker():
        nonlocal errors
        conn = Connection(port, token)
        await conn.open()
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            status, _ = await conn.request("GET", path)
            latencies.append(time.perf_counter() - start)
            errors += status != 200

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies, errors, time.perf_counter() - started


def _cpu_seconds(gunicorn_pid: int) -> dict[str, float]:
    """CPU seconds so far: the whole machine (/proc/stat); this benchmark's processes (the
    client, gunicorn, the worker, the simulated cluster, their PostgreSQL backends); and
    the web alone. So a run can say how busy the rest of the machine kept the cores."""
    tick = os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    table = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read()
        except OSError:
            continue
        table[int(pid)] = (int(parts[1]), (int(parts[11]) + int(parts[12])) / tick, command)
    ours = {os.getpid()}
    for _ in range(3):  # children, grandchildren (gunicorn's workers), their children
        ours |= {pid for pid, (ppid, _s, _c) in table.items() if ppid in ours}
    ours |= {
        p
        for p, (_pp, _s, c) in table.items()
        if c.startswith(b"postgres") and BENCH_DB.encode() in c
    }
    return {
        "machine": (sum(fields) - fields[3] - fields[4]) / tick,
        "bench": sum(table[pid][1] for pid in ours if pid in table),
        "web": sum(s for pid, (pp, s, _c) in table.items() if gunicorn_pid in (pid, pp)),
    }


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _create(conn: Connection, key: str) -> dict:
    status, body = await conn.request(
        "POST",
        "/api/v1/notebooks/",
        {"image": IMAGE, "flavor": "h100", "gpus": 1},
        {"Idempotency-Key": key},
    )
    if status != 201:
        raise SystemExit(f"create failed: {status} {body[:300]!r}")
    return json.loads(body)


async def _creates(port: int, token: str, count: int, sim_url: str):
    create_ms, workload_s = [], []
    conn = Connection(port, token)
    await conn.open()
    for i in range(count):
        start = time.perf_counter()
        name = (await _create(conn, f"bench-{i}"))["name"]
        create_ms.append(time.perf_counter() - start)
        while not _workload_exists(sim_url, name):
            if time.perf_counter() - start > 30:
                raise SystemExit(f"no Workload for {name} after 30 s")
            await asyncio.sleep(0.01)
        workload_s.append(time.perf_counter() - start)
    return create_ms, workload_s


async def _follow(port: int, token: str, count: int, sim_url: str):
    """Per notebook: seconds from its pod turning Ready to the API saying so, and from
    the request to the API saying so. Both sides are polled every ~20 ms."""
    lags, totals = [], []
    conn = Connection(port, token)
    await conn.open()
    for i in range(count):
        start = time.perf_counter()
        created = await _create(conn, f"follow-{i}")
        pod_ready = None
        while True:
            now = time.perf_counter()
            if pod_ready is None and _pod_ready(sim_url, f"{created['name']}-0"):
                pod_ready = now
            _, body = await conn.request("GET", f"/api/v1/notebooks/{created['id']}/")
            if json.loads(body)["state"] == "ready":
                seen = time.perf_counter()
                break
            if now - start > 60:
                raise SystemExit(f"{created['name']} not ready after 60 s")
            await asyncio.sleep(0.02)
        lags.append(seen - (pod_ready or seen))
        totals.append(seen - start)
    return lags, totals


def _pod_ready(sim_url: str, pod: str) -> bool:
    url = f"{sim_url}/api/v1/namespaces/team-vision/pods/{pod}"
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            conditions = json.loads(response.read()).get("status", {}).get("conditions") or []
    except urllib.error.HTTPError:
        return False
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def _await_ready(port: int, token: str, notebook_id: int, seconds: float = 120) -> None:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/notebooks/{notebook_id}/",
        headers={"Authorization": f"Token {token}"},
    )
    deadline = time.monotonic() + seconds
    while json.loads(urllib.request.urlopen(request).read())["state"] != "ready":
        if time.monotonic() > deadline:
            raise SystemExit("the status watch did not catch up")
        time.sleep(0.2)


def _workload_exists(sim_url: str, name: str) -> bool:
    url = f"{sim_url}/apis/kueue.x-k8s.io/v1beta2/namespaces/team-vision/workloads?labelSelector="
    with urllib.request.urlopen(url, timeout=5) as response:
        items = json.loads(response.read())["items"]
    prefix = f"statefulset-{name}-"
    return any(w["metadata"]["name"].startswith(prefix) for w in items)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--creates", type=int, default=60)
    parser.add_argument("--follows", type=int, default=20)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="qm-bench-nb-"))
    cluster, sim_url, env = _set_up(workdir)
    data = _populate()
    _add_nodes(8)
    import redis

    redis.Redis.from_url(env["REDIS_URL"]).flushdb()
    port = _free_port()
    worker_log = open(workdir / "worker.log", "w")  # noqa: SIM115 (closed in finally)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "portal.wsgi",
                # The deployed configuration (Dockerfile, compose, kustomize), with two workers.
                "-c",
                "python:portal.gunicorn",
                "-w",
                "2",
                "-b",
                f"127.0.0.1:{port}",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
        ),
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "portal",
                "worker",
                "--pool",
                "threads",
                "--concurrency",
                "4",
                "--loglevel",
                "WARNING",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
            stdout=worker_log,
            stderr=subprocess.STDOUT,
        ),  # noqa: SIM115
    ]
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("gunicorn did not start") from None
                time.sleep(0.2)
        print("portal up; creating notebooks", file=sys.stderr)
        create_ms, workload_s = asyncio.run(_creates(port, data["token"], args.creates, sim_url))
        first = json.loads(
            urllib.request.urlopen(
                urllib.request.Request(
                    f"http://127.0.0.1:{port}/api/v1/notebooks/?page_size=1",
                    headers={"Authorization": f"Token {data['token']}"},
                )
            ).read()
        )["results"][0]["id"]
        print("reading status under load", file=sys.stderr)
        asyncio.run(_get_load(port, data["token"], f"/api/v1/notebooks/{first}/", 2, 4))  # warm-up
        before = _cpu_seconds(procs[0].pid)
        latencies, errors, wall = asyncio.run(
            _get_load(
                port, data["token"], f"/api/v1/notebooks/{first}/", args.seconds, args.concurrency
            )
        )
        after = _cpu_seconds(procs[0].pid)
        lags = totals = []
        if args.follows:
            print("following status through the watch", file=sys.stderr)
            from informer.tasks import run_informer_task

            # It chains itself as in production; short runs, so the worker stops promptly.
            run_informer_task.delay(seconds=10)
            _await_ready(port, data["token"], first)  # its first run lists, then catches up
            lags, totals = asyncio.run(_follow(port, data["token"], args.follows, sim_url))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=40)  # the worker finishes its watch run first
        worker_log.close()
        cluster.terminate()
        cluster.wait(timeout=20)
    rps = len(latencies) / wall
    used = {k: after[k] - before[k] for k in after}
    others = max(0.0, used["machine"] - used["bench"]) / wall
    lines = [
        f"- GET /api/v1/notebooks/{{id}}/ ({args.concurrency} connections, {args.seconds:g} s): "
        f"**{rps:.0f} req/s**, p50 {_pct(latencies, 0.5) * 1000:.1f} ms, "
        f"p99 {_pct(latencies, 0.99) * 1000:.1f} ms, {errors} errors "
        f"({len(latencies)} requests); web {used['web'] / len(latencies) * 1000:.2f} CPU-ms "
        f"per request; other processes used {others:.2f} of the 2 cores meanwhile "
        f"(load average {os.getloadavg()[0]:.2f}).",
        f"- POST /api/v1/notebooks/ ({args.creates} sequential creates): "
        f"p50 {_pct(create_ms, 0.5) * 1000:.1f} ms, p99 {_pct(create_ms, 0.99) * 1000:.1f} ms.",
        f"- Request → Workload exists in the cluster: p50 {_pct(workload_s, 0.5):.2f} s, "
        f"**p95 {_pct(workload_s, 0.95):.2f} s**, max {max(workload_s):.2f} s.",
    ]
    if lags:
        lines.append(
            f"- Pod Ready in the cluster → `ready` in the API ({args.follows} notebooks, status "
            f"watch): p50 {_pct(lags, 0.5):.2f} s, p95 {_pct(lags, 0.95):.2f} s, "
            f"max {max(lags):.2f} s; request → `ready`: p50 {_pct(totals, 0.5):.2f} s, "
            f"p95 {_pct(totals, 0.95):.2f} s."
        )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
