"""A real Prometheus with a few hours of backfilled DCGM history (promtool), for culling tests."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import requests

from testkit.ports import free_port

STEP = 30
HOURS = 3
# (namespace, pod, utilisation in %): one idle notebook, one busy, one GPU nobody holds.
SERIES = (("team-vision", "nb-idle-0", 1.0), ("team-vision", "nb-busy-0", 55.0), ("", "", 0.0))


def write_fixture(path: Path, end: int) -> None:
    start = end - HOURS * 3600
    lines = [
        "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).",
        "# TYPE DCGM_FI_DEV_GPU_UTIL gauge",
    ]
    for i, (namespace, pod, util) in enumerate(SERIES):
        labels = f'gpu="{i}",UUID="GPU-{i:08x}",Hostname="gpu-0",modelName="NVIDIA H100 80GB HBM3"'
        if pod:
            labels += f',namespace="{namespace}",pod="{pod}",container="notebook"'
        lines += [
            f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {util} {t}" for t in range(start, end + 1, STEP)
        ]
    path.write_text("\n".join(lines) + "\n# EOF\n")


class Prometheus:
    def __init__(self):
        self.work = Path(tempfile.mkdtemp(prefix="qm-prom-"))
        self.end = (int(time.time()) - 120) // STEP * STEP
        self.process: subprocess.Popen | None = None
        self.url = ""

    @property
    def end_time(self) -> datetime:
        return datetime.fromtimestamp(self.end, tz=UTC)

    def start(self) -> Prometheus:
        fixture = self.work / "fixture.om"
        write_fixture(fixture, self.end)
        subprocess.run(
            [
                "promtool",
                "tsdb",
                "create-blocks-from",
                "openmetrics",
                "--quiet",
                "--max-block-duration=240h",
                str(fixture),
                str(self.work / "data"),
            ],
            check=True,
        )
        (self.work / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 30s\nscrape_configs: []\n"
        )
        port = free_port()
        log = open(self.work / "prometheus.log", "wb")  # noqa: SIM115 (closed with the process)
        self.process = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={self.work / 'prometheus.yml'}",
                f"--storage.tsdb.path={self.work / 'data'}",
                "--storage.tsdb.retention.time=10y",
                f"--web.listen-address=127.0.0.1:{port}",
                "--log.level=warn",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(f"{self.url}/-/ready", timeout=1).status_code == 200:
                    return self
            except requests.ConnectionError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((self.work / "prometheus.log").read_text())
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.work, ignore_errors=True)


def available() -> bool:
    return bool(shutil.which("prometheus") and shutil.which("promtool"))
