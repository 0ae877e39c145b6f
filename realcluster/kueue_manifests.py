"""Kueue's own manifests, read from its Go module and pointed at a loopback Kueue.

Pure functions from the module's YAML to the objects we apply: the CRDs (with the
conversion webhook where Kueue's kustomization enables one), the webhook
configurations with URLs on 127.0.0.1 instead of in-cluster Services, the visibility
APIService behind an ExternalName Service, and Kueue's Configuration.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import yaml

# Kueue's crd/kustomization.yaml patches these CRDs to convert through the webhook.
CONVERTED_CRDS = frozenset(
    {
        "localqueues.kueue.x-k8s.io",
        "clusterqueues.kueue.x-k8s.io",
        "cohorts.kueue.x-k8s.io",
        "workloads.kueue.x-k8s.io",
        "multikueueclusters.kueue.x-k8s.io",
    }
)
# Kueue's default install keeps its pod-level webhooks out of system namespaces.
POD_LEVEL_WEBHOOKS = frozenset(
    {"mpod.kb.io", "vpod.kb.io", "mdeployment.kb.io", "vdeployment.kb.io"}
    | {"mstatefulset.kb.io", "vstatefulset.kb.io"}
)
SYSTEM_NAMESPACES = ["kube-system", "kueue-system"]
NAMESPACE = "kueue-system"


def _load_all(path: Path) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def _ca_bundle(ca_pem: bytes) -> str:
    return base64.b64encode(ca_pem).decode()


def crds(module: Path, webhook_url: str, ca_pem: bytes) -> list[dict]:
    """Every CRD Kueue ships, converting through ``webhook_url`` where Kueue does."""
    result = []
    for path in sorted((module / "config/components/crd/bases").glob("*.yaml")):
        for crd in _load_all(path):
            if crd["metadata"]["name"] in CONVERTED_CRDS:
                crd["spec"]["conversion"] = {
                    "strategy": "Webhook",
                    "webhook": {
                        "clientConfig": {
                            "url": f"{webhook_url}/convert",
                            "caBundle": _ca_bundle(ca_pem),
                        },
                        "conversionReviewVersions": ["v1"],
                    },
                }
            result.append(crd)
    return result


def webhook_configurations(module: Path, webhook_url: str, ca_pem: bytes) -> list[dict]:
    """Kueue's mutating and validating webhooks, each calling ``webhook_url`` + its path."""
    result = []
    for config in _load_all(module / "config/components/webhook/manifests.yaml"):
        prefix = "kueue-" if not config["metadata"]["name"].startswith("kueue-") else ""
        config["metadata"]["name"] = prefix + config["metadata"]["name"]
        for hook in config["webhooks"]:
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = {"url": webhook_url + path, "caBundle": _ca_bundle(ca_pem)}
            if hook["name"] in POD_LEVEL_WEBHOOKS:
                hook["namespaceSelector"] = {
                    "matchExpressions": [
                        {
                            "key": "kubernetes.io/metadata.name",
                            "operator": "NotIn",
                            "values": SYSTEM_NAMESPACES,
                        }
                    ]
                }
        result.append(config)
    return result


def visibility_api(module: Path, port: int) -> list[dict]:
    """The visibility APIServices, served by Kueue on ``localhost:port`` via ExternalName."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "visibility-server", "namespace": NAMESPACE},
        "spec": {
            "type": "ExternalName",
            "externalName": "localhost",
            "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
        },
    }
    services = []
    for path in sorted((module / "config/components/visibility").glob("apiservice_*.yaml")):
        for api_service in _load_all(path):
            api_service["spec"]["service"] = {
                "name": "visibility-server",
                "namespace": NAMESPACE,
                "port": port,
            }
            services.append(api_service)
    return [service, *services]


# Kueue's AdmissionFairSharing block (docs/fair-sharing-between-users.md): the weights we
# recommend, on a test's time scale: usage sampled every 2 s and halved every minute, so
# that a 1-GPU job adds 1000m × (1 - 0.5^(2/60)) ≈ 22m GPU per sample (Kueue keeps usage in
# whole milli-units; a day's half-life would round a 2 s sample to 0). Opt-in: with it
# Kueue writes every LocalQueue's status each interval, which other tests need not see.
ADMISSION_FAIR_SHARING = {
    "usageHalfLifeTime": "1m",
    "usageSamplingInterval": "2s",
    "resourceWeights": {"nvidia.com/gpu": 100.0, "cpu": 1.0, "memory": 0.0},
}


def configuration(
    *,
    webhook_port: int,
    cert_dir: Path,
    health_port: int,
    metrics_port: int,
    visibility_port: int,
    fair_sharing: bool,
    admission_fair_sharing: bool = False,
) -> dict[str, Any]:
    """Kueue's Configuration for a loopback run: no leader election, our own certificates."""
    config: dict[str, Any] = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "namespace": NAMESPACE,
        "health": {"healthProbeBindAddress": f"127.0.0.1:{health_port}"},
        "metrics": {"bindAddress": f"127.0.0.1:{metrics_port}"},
        "webhook": {"port": webhook_port, "host": "127.0.0.1", "certDir": str(cert_dir)},
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "visibilityServer": {"bindAddress": "127.0.0.1", "bindPort": visibility_port},
        "clientConnection": {"qps": 50, "burst": 100},
        # Jobs are batch Jobs; notebooks are StatefulSets (which bring the pod integration).
        "integrations": {"frameworks": ["batch/job", "statefulset"]},
    }
    if fair_sharing:
        config["fairSharing"] = {
            "preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
        }
    if admission_fair_sharing:
        config["admissionFairSharing"] = ADMISSION_FAIR_SHARING
    return config


def probe_flavor() -> dict:
    """An object whose server-side dry run passes through Kueue's validating webhook."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": "realcluster-webhook-probe"},
        "spec": {},
    }
