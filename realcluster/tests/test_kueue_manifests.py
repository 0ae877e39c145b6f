"""The Kueue manifests the launcher applies, read from the pinned Kueue module."""

from __future__ import annotations

import base64

import pytest

from realcluster import build_info, kueue_manifests

URL = "https://127.0.0.1:9999"
CA = b"-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n"


@pytest.fixture(scope="module")
def module():
    return build_info.kueue_crd_dir().parents[3]


def test_every_webhook_calls_the_loopback_url_with_our_ca(module):
    configs = kueue_manifests.webhook_configurations(module, URL, CA)
    assert {c["metadata"]["name"] for c in configs} == {
        "kueue-mutating-webhook-configuration",
        "kueue-validating-webhook-configuration",
    }
    hooks = [hook for config in configs for hook in config["webhooks"]]
    assert len(hooks) > 20
    for hook in hooks:
        assert hook["clientConfig"]["url"].startswith(URL + "/")
        assert "service" not in hook["clientConfig"]
        assert base64.b64decode(hook["clientConfig"]["caBundle"]) == CA
    paths = {hook["clientConfig"]["url"][len(URL) :] for hook in hooks}
    assert "/validate-kueue-x-k8s-io-v1beta2-clusterqueue" in paths


def test_pod_level_webhooks_leave_system_namespaces_alone(module):
    configs = kueue_manifests.webhook_configurations(module, URL, CA)
    hooks = {hook["name"]: hook for config in configs for hook in config["webhooks"]}
    excluded = hooks["vpod.kb.io"]["namespaceSelector"]["matchExpressions"][0]
    assert excluded["operator"] == "NotIn" and "kueue-system" in excluded["values"]
    assert "namespaceSelector" not in hooks["vclusterqueue.kb.io"]


def test_multi_version_crds_convert_through_the_webhook(module):
    crds = {c["metadata"]["name"]: c for c in kueue_manifests.crds(module, URL, CA)}
    converted = crds["clusterqueues.kueue.x-k8s.io"]["spec"]["conversion"]
    assert converted["strategy"] == "Webhook"
    assert converted["webhook"]["clientConfig"]["url"] == URL + "/convert"
    served = {v["name"] for v in crds["clusterqueues.kueue.x-k8s.io"]["spec"]["versions"]}
    assert served == {"v1beta1", "v1beta2"}
    assert "conversion" not in crds["resourceflavors.kueue.x-k8s.io"]["spec"] or (
        crds["resourceflavors.kueue.x-k8s.io"]["spec"]["conversion"]["strategy"] == "None"
    )


def test_the_visibility_api_goes_to_localhost_on_the_given_port(module):
    service, *api_services = kueue_manifests.visibility_api(module, 18082)
    assert service["spec"] == {
        "type": "ExternalName",
        "externalName": "localhost",
        "ports": [{"name": "https", "port": 18082, "protocol": "TCP"}],
    }
    assert {a["spec"]["version"] for a in api_services} == {"v1beta1", "v1beta2"}
    assert all(a["spec"]["service"]["port"] == 18082 for a in api_services)


def test_fair_sharing_is_switched_by_the_configuration():
    ports = dict(webhook_port=1, health_port=2, metrics_port=3, visibility_port=4)
    off = kueue_manifests.configuration(cert_dir="/c", fair_sharing=False, **ports)
    on = kueue_manifests.configuration(cert_dir="/c", fair_sharing=True, **ports)
    assert "fairSharing" not in off and on["fairSharing"]["preemptionStrategies"]
    assert off["webhook"] == {"port": 1, "host": "127.0.0.1", "certDir": "/c"}
    assert off["leaderElection"] == {"leaderElect": False}


def test_admission_fair_sharing_is_opt_in_with_gpus_weighted_and_memory_not():
    ports = dict(webhook_port=1, health_port=2, metrics_port=3, visibility_port=4)
    off = kueue_manifests.configuration(cert_dir="/c", fair_sharing=False, **ports)
    on = kueue_manifests.configuration(
        cert_dir="/c", fair_sharing=False, admission_fair_sharing=True, **ports
    )
    assert "admissionFairSharing" not in off
    assert on["admissionFairSharing"] == {
        "usageHalfLifeTime": "1m",
        "usageSamplingInterval": "2s",
        "resourceWeights": {"nvidia.com/gpu": 100.0, "cpu": 1.0, "memory": 0.0},
    }


def test_kwok_times_job_pods_by_the_portals_duration_annotation():
    from apps.jobs.manifests import DURATION_ANNOTATION
    from realcluster import nodes

    assert nodes.DURATION_ANNOTATION == DURATION_ANNOTATION
    stages = {
        s["metadata"]["name"]: s
        for s in nodes.stage_documents(
            build_info.go_module_dir("sigs.k8s.io/kwok", build_info.versions()["KWOK"])
        )
    }
    assert {"node-initialize", "pod-ready", "pod-complete", "pod-delete"} <= set(stages)
    delay = stages["pod-complete"]["spec"]["delay"]
    expression = f'.metadata.annotations["{DURATION_ANNOTATION}"]'
    assert delay["durationFrom"] == delay["jitterDurationFrom"] == {"expressionFrom": expression}
