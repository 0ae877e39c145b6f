"""The browser writes times as the pages do, with their zone, whatever the browser's own
zone is (static/js/when.js, used by the live view and the predicted start)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

WHEN_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "when.js"


def qm_when(*args: str, zone: str) -> str:
    node = shutil.which("node")
    if not node:
        pytest.fail("node is required to run static/js/when.js")
    script = (
        f"var window = {{}}; {WHEN_JS.read_text()}\nconsole.log(window.qmWhen({', '.join(args)}));"
    )
    done = subprocess.run(
        [node, "-e", script], capture_output=True, text=True, check=True,
        env={**os.environ, "TZ": zone},
    )  # fmt: skip
    return done.stdout.strip()


def test_a_predicted_start_reads_in_utc_with_its_zone_in_any_browser_zone():
    # 14:39:05Z is 09:39 in New York; the page says the UTC time and names UTC.
    assert qm_when('"2026-12-04T14:39:05Z"', zone="America/New_York") == "2026-12-04 14:39 UTC"
    assert qm_when('"2026-12-04T14:39:05Z"', "true", zone="Asia/Kolkata") == (
        "2026-12-04 14:39:05 UTC"
    )
    assert qm_when("null", zone="UTC") == "—"
