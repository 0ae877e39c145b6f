"""The real control plane: warm start-up, memory, and the portal's reconciler against it.

``.venv/bin/python bench/realcluster_ops.py [--starts 3] [--queues 20] [--edits 20]``

1. ``realcluster/build.sh`` on a built cache (the warm path), wall time;
2. ``--starts`` start-ups of the whole control plane (etcd … Kueue and KWOK ready),
   wall time each, and the resident memory of every process 20 s after the last one;
3. the reconciler as the portal's ServiceAccount (deployed ClusterRole) on the real
   Kueue: first apply, a no-op reconcile (writes counted from the API server's audit
   log), and ``--edits`` quota edits, each timed from the service call to the
   ClusterQueue showing the new quota when read back (reconcile called in-process:
   no Celery queueing in these figures).

Prints the machine's load average with the figures; nothing is written to the docs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _warm_build() -> float:
    started = time.perf_counter()
    subprocess.run(["bash", str(ROOT / "realcluster/build.sh")], check=True, capture_output=True)
    return time.perf_counter() - started


def _start_ups(count: int, work: Path):
    from realcluster.controlplane import ControlPlane

    seconds = []
    for i in range(count):
        plane = ControlPlane(work / f"start-{i}")
        plane.up()
        seconds.append(plane.startup_seconds)
        if i < count - 1:
            plane.down()
    return plane, seconds


def _setup_django(work: Path, kubeconfig: Path) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="portal.settings",
        QM_DATA_DIR=str(work / "data"),
        KUBECONFIG=str(kubeconfig),
        QM_CLUSTER_SYNC="true",
        KUEUE_API_VERSION="v1beta2",
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def _policy(queues: int):
    from apps.queues import services
    from testkit.factories import make_admin, make_flavor, make_queue, make_team, quota

    admin = make_admin()
    make_flavor(admin, "h100", {"nvidia.com/gpu": str(64 * queues)})
    services.save_cohort(name="research", actor=admin)
    made = [
        make_queue(
            admin, make_team(admin, f"team{i}"), cohort="research", quotas=[quota("h100", "8")]
        )
        for i in range(queues)
    ]
    return admin, made


def _edit_latencies(plane, admin, queues, edits: int) -> list[float]:
    from apps.queues.reconcile.run import reconcile
    from testkit.factories import quota, set_policy

    def nominal(name: str) -> str:
        done = plane.kubectl(
            "get",
            "clusterqueue",
            name,
            "-o",
            "jsonpath={.spec.resourceGroups[0].flavors[0].resources[0].nominalQuota}",
        )
        return done.stdout.strip()

    latencies = []
    for i in range(edits):
        queue = queues[i % len(queues)]
        value = str(9 + i)
        started = time.perf_counter()
        set_policy(queue, admin, quotas=[quota("h100", value)])
        reconcile(trigger="manual")
        while nominal(queue.name) != value:
            time.sleep(0.01)
        latencies.append(time.perf_counter() - started)
    return latencies


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--queues", type=int, default=20)
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    print(f"warm build (cache hit): {_warm_build():.3f} s")
    work = Path(tempfile.mkdtemp(prefix="qm-realcluster-bench-"))
    plane, starts = _start_ups(args.starts, work)
    try:
        print(f"start-ups: {', '.join(f'{s:.1f}' for s in starts)} s")
        time.sleep(20)
        rss = {c.name: _rss_mib(c.process.pid) for c in plane.components}
        print("RSS MiB: " + ", ".join(f"{n} {v:.0f}" for n, v in rss.items()))
        print(f"RSS total: {sum(rss.values()):.0f} MiB")

        from testkit.real_cluster import PORTAL_USER, grant_portal

        _setup_django(work, grant_portal(plane, work / "portal.kubeconfig"))
        from apps.queues.reconcile.run import reconcile

        admin, queues = _policy(args.queues)
        mark = plane.audit_lines()
        started = time.perf_counter()
        first = reconcile(trigger="manual")
        print(
            f"first apply: {time.perf_counter() - started:.2f} s, created {first.created}, "
            f"errors {len(first.errors)}, writes {len(plane.writes_by(PORTAL_USER, mark))}"
        )
        mark = plane.audit_lines()
        started = time.perf_counter()
        noop = reconcile(trigger="manual")
        print(
            f"no-op reconcile: {time.perf_counter() - started:.2f} s, updated {noop.updated}, "
            f"writes {len(plane.writes_by(PORTAL_USER, mark))}"
        )
        latencies = _edit_latencies(plane, admin, queues, args.edits)
        print(
            f"edit → applied over {len(latencies)} edits: p50 {statistics.median(latencies):.3f} s, "
            f"p95 {_p(latencies, 0.95):.3f} s, max {max(latencies):.3f} s"
        )
    finally:
        plane.down()
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
