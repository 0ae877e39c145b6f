"""A real Prometheus backfilled with promtool from an OpenMetrics history.

Follows /work/shared/reference/real-prometheus-recipe.md: fixed historical samples,
``--max-block-duration=240h``, a free loopback port, 10-year retention. Missing
binaries fail the run: these tests must not be skipped silently.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from testkit.ports import free_port


def _wait_ready(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            if requests.get(f"{url}/-/ready", timeout=1).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"prometheus did not become ready:\n{log.read_text()[-2000:]}")
        time.sleep(0.1)


@contextmanager
def backfilled_prometheus(history: Path, work: Path, *flags: str) -> Iterator[str]:
    """A Prometheus on a free loopback port over ``history`` (OpenMetrics), backfilled
    into ``work/data`` with promtool, started with extra ``flags``; stopped by its PID."""
    binary, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if not (binary and promtool):
        pytest.fail("prometheus and promtool are required (apt-get install prometheus)")
    subprocess.run(
        [promtool, "tsdb", "create-blocks-from", "openmetrics", "--quiet",
         "--max-block-duration=240h", str(history), str(work / "data")],
        check=True,
    )  # fmt: skip
    (work / "prometheus.yml").write_text("global:\n  scrape_interval: 30s\nscrape_configs: []\n")
    port, log = free_port(), work / "prometheus.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [binary, f"--config.file={work / 'prometheus.yml'}",
             f"--storage.tsdb.path={work / 'data'}", "--storage.tsdb.retention.time=10y",
             f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn", *flags],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process, log)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
