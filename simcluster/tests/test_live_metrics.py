"""``/metrics`` speaks dcgm-exporter, OpenCost and Kueue; history backfills into real Prometheus."""

from __future__ import annotations

import io
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from simcluster.controller.metrics_history import export
from testkit.live_cluster import NS, admitted, advance, gpu_job, job_pods, setup_cluster
from testkit.waiting import wait_until

START = 1_767_225_600  # 2026-01-01T00:00:00Z, the live fixture's virtual start


def scrape(url: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Parse the text exposition (enough of it for these label values)."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    families: dict[str, list[tuple[dict[str, str], float]]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        head, value = line.rsplit(" ", 1)
        name, _, rest = head.partition("{")
        labels = dict(p.split("=", 1) for p in rest.rstrip("}").split('",') if p) if rest else {}
        labels = {k: v.strip('"') for k, v in labels.items()}
        families.setdefault(name, []).append((labels, float(value)))
    return families


def test_it_exposes_gpu_cost_and_kueue_metrics(live, hooks, core, batch, custom, sim):
    setup_cluster(core, custom)
    job = gpu_job("train", pods=2, duration="2h", annotations={"simcluster/utilization": "85"})
    batch.create_namespaced_job(NS, job)
    admitted(custom, "train")
    wait_until(
        lambda: [p for p in job_pods(core, "train") if p.status and p.status.phase == "Running"]
    )

    metrics = scrape(sim.url)

    util = metrics["DCGM_FI_DEV_GPU_UTIL"]
    assert len(util) == 16 and {v for _, v in util} == {85.0}
    labels = util[0][0]
    assert set(labels) >= {
        "gpu",
        "UUID",
        "modelName",
        "Hostname",
        "namespace",
        "pod",
        "container",
        "device",
        "pci_bus_id",
    }
    assert labels["modelName"] == "NVIDIA H100 80GB HBM3" and labels["namespace"] == NS
    assert sorted(int(lab["gpu"]) for lab, _ in util if lab["Hostname"] == "gpu-0") == list(
        range(8)
    )
    assert len({lab["UUID"] for lab, _ in util}) == 16
    assert {v for _, v in metrics["DCGM_FI_PROF_GR_ENGINE_ACTIVE"]} == {0.782}
    assert {lab["node"]: v for lab, v in metrics["node_gpu_hourly_cost"]} == {
        "gpu-0": 4.0,
        "gpu-1": 4.0,
    }
    assert sum(v for _, v in metrics["container_gpu_allocation"]) == 16
    assert sorted((lab["node"], lab["label_gpu_nvidia_com_class"]) for lab, _ in
                  metrics["kube_node_labels"]) == [("gpu-0", "h100"), ("gpu-1", "h100")]  # fmt: skip
    owners = metrics["kube_pod_owner"]  # one series per pod, as kube-state-metrics has it
    assert sorted(lab["pod"] for lab, _ in owners) == sorted(
        p.metadata.name for p in job_pods(core, "train")
    )
    assert {(lab["owner_kind"], lab["owner_name"], lab["owner_is_controller"], v)
            for lab, v in owners} == {("Job", "train", "true", 1.0)}  # fmt: skip
    admitted_gauge = metrics["kueue_admitted_active_workloads"]
    assert admitted_gauge == [({"cluster_queue": "cq"}, 1.0)]
    assert ({"cluster_queue": "cq", "priority_class": "", "le": "1.0"}, 1.0) in metrics[
        "kueue_admission_wait_time_seconds_bucket"
    ]


def test_it_backfills_metrics_history_into_prometheus(live, hooks, core, batch, custom, tmp_path):
    promtool, prometheus = shutil.which("promtool"), shutil.which("prometheus")
    assert promtool and prometheus, "promtool/prometheus missing: apt-get install prometheus"
    setup_cluster(core, custom)
    batch.create_namespaced_job(
        NS, gpu_job("week", duration="1h", annotations={"simcluster/utilization": "60"})
    )
    admitted(custom, "week")
    advance(hooks, 3 * 3600)
    out = io.StringIO()
    export(live, START * 1000, (START + 3 * 3600) * 1000, 60_000, out)
    text = out.getvalue()
    assert text.endswith("# EOF\n")
    (tmp_path / "h.om").write_text(text)
    data = tmp_path / "data"
    run = [promtool, "tsdb", "create-blocks-from", "openmetrics", "--max-block-duration=240h"]
    subprocess.run([*run, str(tmp_path / "h.om"), str(data)], check=True, capture_output=True)

    with running_prometheus(prometheus, data) as url:
        at = START + 3 * 3600
        samples = query(url, "count_over_time(DCGM_FI_DEV_GPU_UTIL[4h])", at)
        assert {r["metric"]["Hostname"] for r in samples} == {"gpu-0"}
        assert [float(r["value"][1]) for r in samples][:1] == [60.0]  # one hour at 60 s steps
        cost = query(
            url,
            "sum(container_gpu_allocation * on (node) group_left() node_gpu_hourly_cost)",
            START + 1800,
        )
        assert float(cost[0]["value"][1]) == 32.0


def query(url: str, expr: str, at: int) -> list[dict]:
    params = urllib.parse.urlencode({"query": expr, "time": at})
    with urllib.request.urlopen(f"{url}/api/v1/query?{params}", timeout=10) as response:
        return json.loads(response.read())["data"]["result"]


class running_prometheus:
    """Prometheus on a free loopback port over ``data``; stopped by its PID on exit."""

    def __init__(self, binary: str, data: Path) -> None:
        self.binary, self.data = binary, data
        self.work = Path(tempfile.mkdtemp(prefix="prom-"))

    def __enter__(self) -> str:
        (self.work / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 30s\nscrape_configs: []\n"
        )
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [
                self.binary,
                f"--config.file={self.work / 'prometheus.yml'}",
                f"--storage.tsdb.path={self.data}",
                "--storage.tsdb.retention.time=10y",
                f"--web.listen-address=127.0.0.1:{port}",
                "--log.level=warn",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/-/ready", timeout=1):
                    return url
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        pytest.fail("prometheus did not become ready")

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.work, ignore_errors=True)


def test_it_exposes_unschedulable_pods_and_free_gpus_as_kube_state_metrics(
    live, hooks, core, batch, custom, sim
):
    setup_cluster(core, custom)  # 2 nodes × 8 GPUs, quota 16
    for name, gpus in (("left", 6), ("right", 6), ("wide", 4)):
        batch.create_namespaced_job(NS, gpu_job(name, gpus=gpus, duration="2h"))
        admitted(custom, name)
    # 12 GPUs held, 4 of quota left: wide is admitted, but each node has only 2 free.
    wait_until(lambda: job_pods(core, "wide"))

    metrics = scrape(sim.url)

    (wide,) = (p.metadata.name for p in job_pods(core, "wide"))
    assert metrics["kube_pod_status_unschedulable"] == [({"namespace": NS, "pod": wide}, 1.0)]
    requests = {(lab["pod"], lab.get("node", ""), lab["resource"]): v
                for lab, v in metrics["kube_pod_container_resource_requests"]}  # fmt: skip
    assert requests[(wide, "", "nvidia_com_gpu")] == 4
    assert sorted(v for (pod, node, _), v in requests.items() if node) == [6, 6]
    allocatable = {lab["node"]: v for lab, v in metrics["kube_node_status_allocatable"]}
    assert allocatable == {"gpu-0": 8, "gpu-1": 8}
    phases = {lab["pod"]: lab["phase"] for lab, _ in metrics["kube_pod_status_phase"]}
    assert phases[wide] == "Pending" and list(phases.values()).count("Running") == 2
