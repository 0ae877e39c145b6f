"""Small valid Kueue manifests (v1beta2), and the Status body of a refused request."""

from __future__ import annotations

import json
from typing import Any

from kubernetes import client

KUEUE = ("kueue.x-k8s.io", "v1beta2")


def make_cq(name: str, cohort: str | None = "all", **spec: Any) -> dict[str, Any]:
    """A small valid ClusterQueue manifest (v1beta2)."""
    body: dict[str, Any] = {
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "memory"],
                "flavors": [
                    {
                        "name": "default",
                        "resources": [
                            {"name": "cpu", "nominalQuota": 8},
                            {"name": "memory", "nominalQuota": "32Gi"},
                        ],
                    }
                ],
            }
        ],
    }
    if cohort:
        body["cohortName"] = cohort
    body.update(spec)
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": body,
    }


def make_lq(name: str, namespace: str = "default", cluster_queue: str = "cq") -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": cluster_queue},
    }


def make_workload(name: str, queue: str = "lq", cpu: str = "1") -> dict[str, Any]:
    container = {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": name},
        "spec": {
            "queueName": queue,
            "podSets": [
                {"name": "main", "count": 1, "template": {"spec": {"containers": [container]}}}
            ],
        },
    }


def status_of(error: client.ApiException) -> dict[str, Any]:
    """The ``Status`` body of an ApiException."""
    return json.loads(error.body)
