"""A real Prometheus for `make run`, when Debian's `prometheus` package is installed.

On first start the simulated cluster's past week of GPU metrics is backfilled
with promtool (so the demo reports and idle culling have data), then Prometheus
scrapes the cluster's live `/metrics`. Without the package the portal runs
without it and its reports say which panels lack data and why.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from portal.supervisor import stop_processes

HISTORY_STEP = "300s"  # 7 days × every GPU at 5-minute resolution stays ~150 MB of text
SCRAPE_INTERVAL = "30s"


def available() -> bool:
    return bool(shutil.which("prometheus") and shutil.which("promtool"))


def backfill(sim_url: str, work: Path, days: int) -> None:
    """Export the cluster's metric history and turn it into TSDB blocks (first start only)."""
    history = work / "history.om"
    subprocess.run(
        [sys.executable, "-m", "simcluster", "metrics-history", "--url", sim_url,
         "--from", f"now-{days}d", "--step", HISTORY_STEP, "-o", str(history)],
        check=True,
    )  # fmt: skip
    subprocess.run(
        ["promtool", "tsdb", "create-blocks-from", "openmetrics", "--quiet",
         "--max-block-duration=240h", str(history), str(work / "data")],
        check=True,
    )  # fmt: skip
    history.unlink()


def start(sim_url: str, work: Path, port: int = 0) -> tuple[subprocess.Popen, str]:
    """Start Prometheus on ``port`` (default: a free loopback port), scraping the cluster."""
    target = sim_url.removeprefix("http://")
    config = work / "prometheus.yml"
    config.write_text(
        f"global:\n  scrape_interval: {SCRAPE_INTERVAL}\n"
        f"scrape_configs:\n  - job_name: simcluster\n    static_configs:\n"
        f"      - targets: ['{target}']\n"
    )
    port = port or free_port()
    log = (work / "prometheus.log").open("ab")
    process = subprocess.Popen(
        ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={work / 'data'}",
         "--storage.tsdb.retention.time=30d", f"--web.listen-address=127.0.0.1:{port}",
         "--log.level=warn"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process)
    except BaseException:  # not ready, or the launcher interrupted: nobody watches it yet
        stop_processes([process])
        raise
    return process, url


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_ready(url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(
        f"Prometheus did not become ready at {url} (see var/prometheus/prometheus.log)"
    )
