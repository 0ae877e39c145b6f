"""docs/quote_client.py end to end: a live portal on the simulated cluster, a personal token,
and the verdict in words and in the exit status."""

import json
import subprocess
import sys

import pytest

from apps.accounts.services import issue_api_token
from apps.jobs.models import BatchJob
from apps.queues.reconcile.run import reconcile
from testkit.paths import REPO

pytestmark = pytest.mark.django_db(transaction=True)


def quote(url: str, token: str, body: dict, *extra: str) -> subprocess.CompletedProcess:
    script = str(REPO / "docs" / "quote_client.py")
    return subprocess.run(
        [sys.executable, script, "--url", url, "--token", token, *extra, "-"],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_example_client_prints_the_verdict_and_exits_by_it(
    live_server, sim, queue, template, scientist
):
    reconcile(trigger="manual")
    _, raw = issue_api_token(scientist, "cli", actor=scientist)
    job = {"template": "pytorch-train", "flavor": "h100", "gpus_per_pod": 8}

    now = quote(live_server.url, raw, job)
    # An empty cluster: vision's own 16 h100 take 8 at once.
    assert now.returncode == 0, now.stderr
    # No price set and no run recorded: no cost; vision preempts nothing within itself.
    assert now.stdout.splitlines() == [
        "now: it would be admitted now on h100",
        "chance of being preempted before it ends: 0%",
    ]

    never = quote(live_server.url, raw, {**job, "gpus_per_pod": 1, "pods": 17}, "--json")
    # 17 pods × 1 GPU: more than vision's 16 h100 could ever get.
    assert never.returncode == 4, never.stderr
    assert json.loads(never.stdout)["field"] == "pods"

    refused = quote(live_server.url, raw, {**job, "pods": 0})
    assert refused.returncode == 1
    assert refused.stderr.startswith("refused: invalid (pods): ")
    assert not BatchJob.objects.exists()  # a quote writes nothing
