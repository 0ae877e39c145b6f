"""docker-compose.yml validates offline with Debian's docker-compose (no engine needed)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_compose_file_is_valid():
    if not shutil.which("docker-compose"):
        pytest.fail("docker-compose is missing: .ci/run installs Debian's package")
    result = subprocess.run(
        ["docker-compose", "-f", str(ROOT / "docker-compose.yml"), "config", "-q"],
        env={"SECRET_KEY": "compose-validation-only", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
