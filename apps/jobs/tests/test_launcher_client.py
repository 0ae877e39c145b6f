"""docs/launcher_client.py end to end: live portal, simulated cluster, the portal's own tasks."""

import subprocess
import sys
import threading

import pytest

from apps.jobs import tasks
from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook
from apps.queues.reconcile.run import reconcile
from testkit.notebooks import IMAGE
from testkit.paths import REPO

pytestmark = pytest.mark.django_db(transaction=True)


class Operator(threading.Thread):
    """What the worker and beat do: create requested notebooks, then sync status, repeatedly."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stopping = threading.Event()

    def run(self):
        from django.db import connection

        try:
            while not self.stopping.wait(0.3):
                for pk in Notebook.objects.filter(state=NotebookState.REQUESTED).values_list(
                    "pk", flat=True
                ):
                    tasks.provision_notebook_task(pk)
                tasks.sync_jobs_status_task()
        finally:
            connection.close()


def test_the_example_client_gets_a_ready_notebook(
    live_server, sim, pool, queue, launcher, scientist
):
    reconcile(trigger="manual")
    operator = Operator()
    operator.start()
    try:
        result = subprocess.run(
            [
                sys.executable,
                str(REPO / "docs" / "launcher_client.py"),
                "--url",
                live_server.url,
                "--token",
                launcher["raw"],
                "--image",
                IMAGE,
                "--flavor",
                "h100",
                "--user",
                "scientist",
                "--timeout",
                "60",
            ],
            capture_output=True,
            text=True,
            timeout=90,
        )
    finally:
        operator.stopping.set()
        operator.join()
    assert result.returncode == 0, result.stderr
    notebook = Notebook.objects.get()
    assert result.stdout.strip() == notebook.url
    assert notebook.owner == scientist and notebook.state == NotebookState.READY
    assert "requested" in result.stderr and "ready" in result.stderr


def test_the_example_client_reports_a_refusal(live_server, pool, launcher, other_lead):
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "docs" / "launcher_client.py"),
            "--url",
            live_server.url,
            "--token",
            launcher["raw"],
            "--image",
            IMAGE,
            "--flavor",
            "h100",
            "--user",
            "otherlead",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "launcher_not_allowed" in result.stderr
