"""Reports on history the simulated cluster exported, backfilled into a real Prometheus.

Attribution by ownership (kube_pod_owner):
Two Jobs run at once on the simulated cluster; their names share the first 57
characters, so their pods (``<name[:57]>-<5 chars>``) fit both names and the name
alone would give every sample to the longer one. The simulator's history is
backfilled into a real Prometheus and the weekly report reads it like any other.

Fragmentation from its kube-state-metrics series (unschedulable pods, requests, allocatable).
"""

from __future__ import annotations

import urllib.parse
import urllib.request
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from kubernetes import client, config

from apps.reports import services
from apps.reports.models import WorkloadUsage
from core import prometheus
from simcluster.controller import attach
from simcluster.server import start_server
from testkit import history
from testkit.factories import make_flavor
from testkit.live_cluster import NS, admitted, advance, gpu_job, setup_cluster
from testkit.prometheus_backfill import backfilled_prometheus
from testkit.sim_hooks import Hooks

WEEK = "2026-W45"
START = int(datetime(2026, 11, 2, 8, tzinfo=UTC).timestamp())  # Monday 08:00 of WEEK
SHORT = "finetune-llama-70b-instruct-long-context-sweep-lr-3e-5-a1"  # 57 characters
LONG = f"{SHORT}-b"
UTIL = {SHORT: 30, LONG: 90}  # percent, constant for the whole run
H = 3600


def export_history(tmp_path, jobs: list[tuple[str, dict]], hours: float) -> Path:
    """Run ``jobs`` (name, gpu_job options) on the simulated cluster from START for
    ``hours`` of virtual time; its metrics history at 60 s, as OpenMetrics."""
    server = start_server(kubeconfig_out=tmp_path / "kubeconfig", bookmark_interval=0.2)
    try:
        attach(server, "virtual", start_ms=START * 1000)
        api = config.new_client_from_config(str(server.kubeconfig_path))
        core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
        setup_cluster(core, custom)  # 2 nodes × 8 GPUs labelled gpu.nvidia.com/class=h100
        for name, options in jobs:
            client.BatchV1Api(api).create_namespaced_job(NS, gpu_job(name, **options))
            admitted(custom, name)
        advance(Hooks(server.url), hours * 3600)
        query = {"from": START, "to": START + int(hours * 3600), "step": "60s"}
        url = f"{server.url}/simcluster/metrics/history?{urllib.parse.urlencode(query)}"
        with urllib.request.urlopen(url, timeout=60) as response:
            (tmp_path / "sim.om").write_bytes(response.read())
        api.close()
    finally:
        server.stop()
    return tmp_path / "sim.om"


@contextmanager
def reporting_from(history: Path, tmp_path, settings):
    # Backfilled series have no staleness markers: a 30 s lookback ends each one at its
    # last sample, as a scraped series that disappears would end.
    with backfilled_prometheus(history, tmp_path, "--query.lookback-delta=30s") as url:
        settings.PROMETHEUS_URL = url
        settings.OPENCOST_URL = ""
        settings.QM_PROMETHEUS_STEP_SECONDS = 60
        yield url


@pytest.fixture
def on_simulated_prometheus(tmp_path, settings, db):
    jobs = [(name, {"duration": "2h", "annotations": {"simcluster/utilization": str(util)}})
            for name, util in UTIL.items()]  # fmt: skip
    with reporting_from(export_history(tmp_path, jobs, 3), tmp_path, settings) as url:
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


def test_fragmentation_on_the_simulated_cluster(tmp_path, settings, admin):
    make_flavor(
        admin, "h100", {"nvidia.com/gpu": "16"}, node_labels={"gpu.nvidia.com/class": "h100"}
    )
    jobs = [("left", {"gpus": 6, "duration": "2h"}), ("right", {"gpus": 6, "duration": "2h"}),
            ("wide", {"gpus": 4, "duration": "1h"})]  # fmt: skip
    history.record(
        history.life("left", NS, created=START, admitted=START, ended=START + 2 * H, gpus=6),
        history.life("right", NS, created=START, admitted=START, ended=START + 2 * H, gpus=6),
        history.life("wide", NS, created=START, admitted=START, ended=START + 3 * H, gpus=4),
    )
    with reporting_from(export_history(tmp_path, jobs, 4), tmp_path, settings):
        data = services.build_weekly_report(WEEK, now=datetime.fromtimestamp(START + 4 * H, tz=UTC))
    # left and right hold 6 GPUs on each node: 4 free in all, 2 per node. wide (4 GPUs,
    # admitted by quota) waits unschedulable for 2 h with exactly 4 free: 4 × 2 GPU-hours.
    (row,) = data.data["fragmentation"]["flavors"]
    assert (row["flavor"], row["unit"], row["capacity"]) == ("h100", "GPU", 16)
    assert row["fragmented_hours"] == pytest.approx(4 * 2)
    assert row["blocked_demand_hours"] == pytest.approx(4 * 2)
