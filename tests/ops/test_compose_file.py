"""docker-compose.yml validates offline with Debian's docker-compose (no engine needed),
with and without the demo profile; Prometheus' config and alert rules pass promtool."""

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"


def compose(*args: str) -> subprocess.CompletedProcess:
    if not shutil.which("docker-compose"):
        pytest.fail(
            "docker-compose is missing: make test (scripts/setup.sh) installs Debian's package"
        )
    return subprocess.run(
        ["docker-compose", "-f", str(ROOT / "docker-compose.yml"), *args],
        env={"SECRET_KEY": "compose-validation-only", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_compose_file_is_valid():
    result = compose("config", "-q")
    assert result.returncode == 0, result.stderr


def _services(*args: str) -> dict:
    result = compose(*args, "config")
    assert result.returncode == 0, result.stderr
    return yaml.safe_load(result.stdout)["services"]


def test_the_default_stack_has_prometheus_and_no_simulated_cluster():
    always = {name for name, s in _services().items() if not s.get("profiles")}
    assert always == {"web", "worker", "beat", "postgres", "redis", "prometheus"}


def test_the_demo_profile_adds_the_simulated_cluster_and_demo_data():
    services = _services("--profile", "demo")
    assert services["simcluster"]["profiles"] == services["demo-data"]["profiles"] == ["demo"]
    assert "simcluster serve" in _command(services["simcluster"])
    assert "load_demo" in _command(services["demo-data"])
    # load_demo refuses production; only the one-shot demo loader runs as dev.
    assert services["demo-data"]["environment"]["QM_ENV"] == "dev"
    assert services["web"]["environment"]["QM_ENV"] == "production"


def _command(service: dict) -> str:
    command = service["command"]
    return command if isinstance(command, str) else " ".join(command)


def test_prometheus_config_and_alerts_pass_promtool(tmp_path):
    if not shutil.which("promtool"):
        pytest.fail(
            "promtool is missing: make test (scripts/setup.sh) installs Debian's prometheus package"
        )
    (tmp_path / "token").write_text("x")
    config = (PROMETHEUS / "prometheus.yml").read_text()
    config = config.replace("/prometheus/metrics-token", str(tmp_path / "token"))
    config = config.replace("/etc/prometheus/", f"{PROMETHEUS}/")
    (tmp_path / "prometheus.yml").write_text(config)
    checks = (("config", tmp_path / "prometheus.yml"), ("rules", PROMETHEUS / "alerts.yml"))
    for kind, path in checks:
        args = ["check", kind, str(path)]
        result = subprocess.run(["promtool", *args], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
