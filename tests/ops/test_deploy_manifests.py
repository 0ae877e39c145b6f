"""deploy/kustomize renders offline with kubectl's built-in kustomize, and every
object validates against the Kubernetes 1.32 schemas (kubernetes-validate)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from core import rbac

ROOT = Path(__file__).resolve().parents[2]
KUSTOMIZE = ROOT / "deploy" / "kustomize"
KUBERNETES_VERSION = "1.32"


def render(target: str) -> list[dict]:
    if not shutil.which("kubectl"):
        pytest.fail("kubectl is missing: make test (scripts/install-kubectl.sh) installs one")
    result = subprocess.run(
        ["kubectl", "kustomize", str(KUSTOMIZE / target)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


@pytest.fixture(scope="module")
def example() -> list[dict]:
    return render("overlays/example")


def by_kind(objects: list[dict], kind: str) -> list[dict]:
    return [o for o in objects if o["kind"] == kind]


@pytest.mark.parametrize("target", ["base", "overlays/example"])
def test_every_object_validates_against_the_kubernetes_schema(target):
    for obj in render(target):
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


def test_it_runs_web_worker_and_beat_under_the_service_account(example):
    deployments = {d["metadata"]["name"]: d for d in by_kind(example, "Deployment")}
    assert set(deployments) == {"quartermaster-web", "quartermaster-worker", "quartermaster-beat"}
    for deployment in deployments.values():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["serviceAccountName"] == "quartermaster"
        assert pod["securityContext"]["runAsNonRoot"] is True
        for container in pod["containers"] + pod.get("initContainers", []):
            assert container["image"] == "registry.example.org/quartermaster:0.1.0"
            assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert deployments["quartermaster-beat"]["spec"]["replicas"] == 1
    assert deployments["quartermaster-beat"]["spec"]["strategy"]["type"] == "Recreate"


def test_the_cluster_role_is_bound_and_is_exactly_the_declared_rules(example):
    (role,) = by_kind(example, "ClusterRole")
    assert role["rules"] == rbac.cluster_role_rules()
    (binding,) = by_kind(example, "ClusterRoleBinding")
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "quartermaster", "namespace": "quartermaster"}
    ]


def test_secrets_and_config_reach_every_container(example):
    (secret,) = by_kind(example, "Secret")
    (config,) = by_kind(example, "ConfigMap")
    assert {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "QM_METRICS_TOKEN"} <= set(secret["data"])
    for deployment in by_kind(example, "Deployment"):
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            sources = {next(iter(s.values()))["name"] for s in container["envFrom"]}
            assert sources == {secret["metadata"]["name"], config["metadata"]["name"]}


def test_configured_variables_are_documented(example):
    documented = set(
        re.findall(
            r"^\| `([A-Z_][A-Z0-9_]*)` \|", (ROOT / "docs/configuration.md").read_text(), re.M
        )
    )
    (config,) = by_kind(example, "ConfigMap")
    (secret,) = by_kind(example, "Secret")
    assert set(config["data"]) | set(secret["data"]) <= documented


def test_the_ingress_routes_the_host_to_the_web_service(example):
    (ingress,) = by_kind(example, "Ingress")
    rule = ingress["spec"]["rules"][0]
    assert rule["host"] == "gpu.example.org"
    backend = rule["http"]["paths"][0]["backend"]["service"]
    services = {s["metadata"]["name"] for s in by_kind(example, "Service")}
    assert backend["name"] in services
