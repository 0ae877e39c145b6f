"""The demo week's reports are built even when the cluster times out meanwhile: the
launcher's ``finish_demo_week`` waits it out with a backoff, and the banner stays on
every page until the reports are there. A cluster that refuses for good leaves the
banner saying so, and the next start tries again.

``DemoWeek`` runs the real command in a process of its own, on the test database, against
the simulated cluster over HTTP; the timeout is the cluster's own fault injection (its
answer comes later than the portal waits)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from django.db import connection

from apps.reports.models import WeeklyReport
from portal import preparing
from portal.demo.week import DemoWeek
from portal.supervisor import stop_processes
from portal.terminal import Terminal
from testkit.paths import REPO
from testkit.sim_cluster import SimCluster
from testkit.waiting import wait_until
from testkit.workers import shared_database_url

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def cluster(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("the command runs in a process of its own on the test database")
    sim = SimCluster(tmp_path).start()
    yield sim
    sim.stop()


def _week(
    tmp_path, cluster: SimCluster, *, played: str = "", resume: bool = True, on_ready=lambda: None
) -> DemoWeek:
    """The launcher's DemoWeek on ``cluster``, told ``played`` (the cluster's output); what
    it shows is in ``week.terminal.stream``."""
    env = {
        **os.environ,
        "DATABASE_URL": shared_database_url(),
        "KUBECONFIG": str(cluster.kubeconfig),
        "QM_CLUSTER_SYNC": "true",
        "QM_KUBE_TIMEOUT_SECONDS": "1",
        "QM_DATA_DIR": str(tmp_path / "command-data"),
    }

    def spawn(name: str, args: list[str]) -> subprocess.Popen:
        log = (tmp_path / f"{name}.log").open("w")
        argv = [sys.executable, "manage.py", *args]
        return subprocess.Popen(argv, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)

    return DemoWeek(
        io.StringIO(played), sim_url=cluster.url, data_dir=tmp_path, days=1, spawn=spawn,
        prometheus_work=tmp_path / "prometheus", pending=tmp_path / "pending", resume=resume,
        terminal=Terminal(io.StringIO()), on_ready=on_ready,
    )  # fmt: skip


def _finished(week: DemoWeek, tmp_path) -> int | None:
    """The command's exit code once it exited; meanwhile no banner means reports exist."""
    banner = preparing.read(tmp_path)  # read before the reports: it is cleared after them
    assert banner is not None or WeeklyReport.objects.exists(), "banner gone, no reports"
    return week.children[-1].poll() if week.children else None


def test_a_cluster_timeout_is_waited_out_and_the_reports_appear(tmp_path, cluster):
    cluster.fault(verb="list", resource="workloads", latencySeconds=4, count=2)
    announced = []  # the launcher shows the URL and logins again
    week = _week(tmp_path, cluster, on_ready=lambda: announced.append("again")).start()

    assert wait_until(lambda: _finished(week, tmp_path) is not None, timeout=300) is not None
    output = (tmp_path / "reports.log").read_text()
    assert week.children[0].returncode == 0, output
    assert output.count("the cluster did not answer (cluster unreachable (list") == 2
    assert wait_until(week.ready.is_set, timeout=10)
    assert WeeklyReport.objects.exists()
    assert preparing.read(tmp_path) is None and not (tmp_path / "pending").exists()
    assert announced == ["again"]


def test_a_cluster_that_refuses_for_good_leaves_the_failure_in_the_banner(tmp_path, cluster):
    cluster.fault(verb="list", resource="workloads", code=403, count=0)
    week = _week(tmp_path, cluster).start()

    wait_until(lambda: _finished(week, tmp_path) is not None, timeout=300)
    assert "the cluster refused: forbidden" in (tmp_path / "reports.log").read_text()
    banner = wait_until(lambda: preparing.read(tmp_path), timeout=10)
    wait_until(lambda: "failed" in preparing.read(tmp_path).step, timeout=10)
    assert str(preparing.read(tmp_path)) == (
        "Preparing the demo week: failed: finish_demo_week exited with code 1 (100 %) — "
        "the terminal says why; the next make run tries again"
    )
    assert banner and not week.ready.is_set() and (tmp_path / "pending").exists()
    assert not WeeklyReport.objects.exists()


def test_a_cluster_that_stops_mid_week_gets_the_reports_of_what_was_played(tmp_path, cluster):
    # The cluster's output ends half-way through the week: it died (and, in the launcher,
    # came back from its snapshot without the rest of the week).
    week = _week(tmp_path, cluster, played="simcluster seeding: 0.5 of 1 days\n", resume=False)
    try:
        week.start()
        wait_until(lambda: _finished(week, tmp_path) == 0 or week.ready.is_set(), timeout=240)
        assert wait_until(week.ready.is_set, timeout=10)
    finally:
        stop_processes(week.children)  # Prometheus, when the package is installed
    assert WeeklyReport.objects.exists() and preparing.read(tmp_path) is None
    shown = week.terminal.stream.getvalue()
    # The status line (not a TTY: its first value), then the end of the week below it.
    assert shown.startswith(
        "[##############..............] Preparing the demo week: day 1 of 1 (50 %)"
    )
    assert "the demo week is ready: its reports and what-if are open\n" in shown
