"""Production settings refuse to start without secrets and pass `check --deploy` cleanly."""

import os
import subprocess
import sys
from pathlib import Path

from testkit.manage_command import manage

ROOT = Path(__file__).resolve().parents[2]
SECRET = "x" * 20 + "-production-secret-for-the-deploy-check-only-" + "y" * 20


def test_check_deploy_is_clean(tmp_path):
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        QM_ENV="production",
        SECRET_KEY=SECRET,
        ALLOWED_HOSTS="portal.example.org",
        QM_DATA_DIR=str(tmp_path),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_without_a_secret_fails_loudly(tmp_path):
    result = manage("check", QM_ENV="production", ALLOWED_HOSTS="x", QM_DATA_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_a_malformed_variable_names_itself(tmp_path):
    result = manage("check", QM_CHANGE_REQUEST_TTL_DAYS="two weeks", QM_DATA_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "QM_CHANGE_REQUEST_TTL_DAYS='two weeks' is not a valid integer" in result.stderr


def test_production_without_allowed_hosts_fails_loudly(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "ALLOWED_HOSTS"}
    result = subprocess.run(
        [sys.executable, "-c", "import portal.settings"],
        cwd=ROOT,
        env={**env, "QM_ENV": "production", "SECRET_KEY": SECRET, "QM_DATA_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "ConfigError: ALLOWED_HOSTS must be set when QM_ENV=production" in result.stderr


def test_gunicorn_trusts_forwarded_headers_only_from_the_trusted_proxies(tmp_path):
    # Read back through gunicorn's own validation of the setting.
    script = (
        "import portal.gunicorn as g; from gunicorn.config import Config; c = Config(); "
        "c.set('forwarded_allow_ips', g.forwarded_allow_ips); print(c.forwarded_allow_ips)"
    )
    seen = {}
    for proxies in ("", "10.0.0.0/8, 192.0.2.7, 2001:db8::/32"):
        result = _python(script, QM_TRUSTED_PROXIES=proxies)
        assert result.returncode == 0, result.stderr
        seen[proxies] = result.stdout.strip()
    assert seen == {
        "": "[]",
        "10.0.0.0/8, 192.0.2.7, 2001:db8::/32": "['10.0.0.0/8', '192.0.2.7/32', '2001:db8::/32']",
    }


def test_a_malformed_trusted_proxy_names_itself(tmp_path):
    result = manage("check", QM_TRUSTED_PROXIES="10.0.0.1/8", QM_DATA_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "QM_TRUSTED_PROXIES='10.0.0.1/8' is not a valid" in result.stderr


def test_gunicorn_workers_hand_the_gil_over_at_the_configured_interval():
    # A forked worker runs post_fork; here the hook runs in a fresh interpreter.
    script = (
        "import sys, portal.gunicorn as g; g.post_fork(None, None); "
        "print(round(sys.getswitchinterval() * 1e6))"
    )
    seen = {}
    for value in ("", "2", "0", "abc"):
        result = _python(script, GUNICORN_SWITCH_INTERVAL_MS=value)
        seen[value] = result.stdout.strip() or result.stderr.strip().splitlines()[-1]
    assert seen[""] == "5000"  # microseconds: Python's 5 ms unless told otherwise
    assert seen["2"] == "2000"
    assert seen["0"].endswith("GUNICORN_SWITCH_INTERVAL_MS must be above 0 and at most 100")
    assert "GUNICORN_SWITCH_INTERVAL_MS" in seen["abc"]


def _python(script: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_informer_run_of_no_seconds_is_refused_naming_the_setting(tmp_path):
    result = manage("check", QM_INFORMER_WATCH_SECONDS="0", QM_DATA_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "QM_INFORMER_WATCH_SECONDS must be at least 1" in result.stderr


def test_a_portal_namespace_that_is_no_namespace_name_is_refused(tmp_path):
    result = manage("check", QM_PORTAL_NAMESPACE="Quarter Master", QM_DATA_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "QM_PORTAL_NAMESPACE='Quarter Master' is not a valid namespace name" in result.stderr
    assert "e.g. 'gpu-portal'" in result.stderr


def test_a_protected_pattern_that_matches_everything_is_refused(tmp_path):
    result = manage("check", QM_PROTECTED_NAMESPACES="kube-*,*", QM_DATA_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "QM_PROTECTED_NAMESPACES='kube-*,*' is not a valid comma-separated list" in result.stderr
    assert "'*' is not a namespace name or a pattern of one" in result.stderr


def test_protected_patterns_are_read_as_written(tmp_path):
    script = "from django.conf import settings; print(settings.QM_PROTECTED_NAMESPACES)"
    result = manage(
        "shell",
        "-c",
        script,
        QM_PROTECTED_NAMESPACES=" kube-*, ops-*,default ",
        QM_DATA_DIR=str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "['kube-*', 'ops-*', 'default']"


def test_an_admission_fair_sharing_block_that_is_not_json_is_refused(tmp_path):
    result = manage(
        "check", QM_KUEUE_ADMISSION_FAIR_SHARING="half-life 24h", QM_DATA_DIR=str(tmp_path)
    )
    assert result.returncode != 0
    assert "QM_KUEUE_ADMISSION_FAIR_SHARING='half-life 24h' is not a valid" in result.stderr
    assert "not JSON" in result.stderr


def test_an_admission_fair_sharing_block_with_a_key_kueue_lacks_is_refused(tmp_path):
    result = manage(
        "check", QM_KUEUE_ADMISSION_FAIR_SHARING='{"halfLife": "24h"}', QM_DATA_DIR=str(tmp_path)
    )
    assert result.returncode != 0
    assert "unknown key 'halfLife'" in result.stderr
    assert '"usageHalfLifeTime": "168h"' in result.stderr  # a valid example


def test_an_admission_fair_sharing_block_reaches_the_model_as_written(tmp_path):
    script = (
        "from core.kueue_config import cluster_configuration; import json; "
        "print(json.dumps(cluster_configuration(fair_sharing=False), sort_keys=True))"
    )
    block = '{"usageHalfLifeTime": "24h", "resourceWeights": {"nvidia.com/gpu": 100}}'
    result = manage(
        "shell", "-c", script, QM_KUEUE_ADMISSION_FAIR_SHARING=block, QM_DATA_DIR=str(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == (
        '[{"admissionFairSharing": {"resourceWeights": {"nvidia.com/gpu": 100}, '
        '"usageHalfLifeTime": "24h"}, "apiVersion": "config.kueue.x-k8s.io/v1beta1", '
        '"kind": "Configuration"}]'
    )
