"""Attribution by ownership on history the simulated cluster exported (kube_pod_owner).

Two Jobs run at once on the simulated cluster; their names share the first 57
characters, so their pods (``<name[:57]>-<5 chars>``) fit both names and the name
alone would give every sample to the longer one. The simulator's history is
backfilled into a real Prometheus and the weekly report reads it like any other.
"""

from __future__ import annotations

import urllib.parse
import urllib.request
from datetime import UTC, datetime

import pytest
from kubernetes import client, config

from apps.reports import prometheus, services
from apps.reports.models import WorkloadUsage
from apps.reports.tests import history
from apps.reports.tests.conftest import backfilled_prometheus
from simcluster.controller import attach
from simcluster.server import start_server
from simcluster.tests.conftest import Hooks
from simcluster.tests.live_helpers import NS, admitted, advance, gpu_job, setup_cluster

WEEK = "2026-W45"
START = int(datetime(2026, 11, 2, 8, tzinfo=UTC).timestamp())  # Monday 08:00 of WEEK
SHORT = "finetune-llama-70b-instruct-long-context-sweep-lr-3e-5-a1"  # 57 characters
LONG = f"{SHORT}-b"
UTIL = {SHORT: 30, LONG: 90}  # percent, constant for the whole run


@pytest.fixture
def simulated_history(tmp_path):
    """Run both Jobs for 2 h on the virtual clock and export 3 h of history at 60 s."""
    server = start_server(kubeconfig_out=tmp_path / "kubeconfig", bookmark_interval=0.2)
    try:
        attach(server, "virtual", start_ms=START * 1000)
        api = config.new_client_from_config(str(server.kubeconfig_path))
        core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
        setup_cluster(core, custom)  # 2 nodes × 8 GPUs, 16 GPUs of quota
        for name, util in UTIL.items():
            notes = {"simcluster/utilization": str(util)}
            client.BatchV1Api(api).create_namespaced_job(
                NS, gpu_job(name, duration="2h", annotations=notes)
            )
        for name in UTIL:
            admitted(custom, name)
        advance(Hooks(server.url), 3 * 3600)
        query = urllib.parse.urlencode({"from": START, "to": START + 3 * 3600, "step": "60s"})
        url = f"{server.url}/simcluster/metrics/history?{query}"
        with urllib.request.urlopen(url, timeout=60) as response:
            (tmp_path / "sim.om").write_bytes(response.read())
        api.close()
    finally:
        server.stop()
    return tmp_path / "sim.om"


@pytest.fixture
def on_simulated_prometheus(simulated_history, tmp_path, settings, db):
    with backfilled_prometheus(simulated_history, tmp_path) as url:
        settings.PROMETHEUS_URL = url
        settings.OPENCOST_URL = ""
        settings.QM_PROMETHEUS_STEP_SECONDS = 300
        yield url


def test_pods_of_jobs_sharing_a_long_prefix_never_mix(on_simulated_prometheus):
    at = datetime.fromtimestamp(START + 3 * 3600, tz=UTC)
    owners = prometheus.pod_owners(datetime.fromtimestamp(START, tz=UTC), at)
    # One pod per Job, and both pod names fit both Job names.
    assert sorted(owners.values()) == sorted(UTIL)
    assert all(pod.startswith(f"{SHORT}-") for _, pod in owners)

    history.record(
        *(
            history.life(name, NS, created=START, admitted=START, ended=START + 3 * 3600, gpus=8)
            for name in UTIL
        )
    )
    services.build_weekly_report(WEEK, now=at)
    got = {
        uid: util
        for uid, util in WorkloadUsage.objects.filter(week=WEEK).values_list(
            "workload__uid", "gpu_util"
        )
    }
    # Each Job's 8 GPUs ran at its own constant utilisation: 0.30 and 0.90, never 0.60.
    assert got == {
        f"uid-{SHORT}": pytest.approx(UTIL[SHORT] / 100),
        f"uid-{LONG}": pytest.approx(UTIL[LONG] / 100),
    }
