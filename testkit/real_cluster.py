"""The real control plane (kube-apiserver, etcd, KWOK, the real Kueue) for cluster tests.

One control plane per test session (``realcluster.ControlPlane``); each test gets a
``RealCluster`` with the same methods as ``SimCluster`` and a wiped cluster after it.
The portal talks to it as the ServiceAccount that ``deploy/`` grants, with exactly the
ClusterRole from ``deploy/kustomize/base/clusterrole.yaml``; writes are counted from
the API server's audit log, so no help from the cluster under test is needed.
"""

from __future__ import annotations

import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from apps.queues.reconcile.observe import ref
from core.kube import KubeClient, _configuration
from realcluster.controlplane import ControlPlane
from realcluster.nodes import DURATION_ANNOTATION
from testkit.paths import REPO

DEPLOY = REPO / "deploy" / "kustomize" / "base"
PORTAL_NAMESPACE = "quartermaster"
PORTAL_USER = f"system:serviceaccount:{PORTAL_NAMESPACE}:quartermaster"
KEEP_NAMESPACES = frozenset(
    {"default", "kube-system", "kube-public", "kube-node-lease", "kueue-system", PORTAL_NAMESPACE}
)
KUEUE_CLUSTER_KINDS = "clusterqueues.kueue.x-k8s.io,cohorts.kueue.x-k8s.io,resourceflavors.kueue.x-k8s.io,topologies.kueue.x-k8s.io,workloadpriorityclasses.kueue.x-k8s.io"


def grant_portal(plane: ControlPlane, kubeconfig: Path) -> Path:
    """The portal's ServiceAccount, bound to the deployed ClusterRole; its kubeconfig."""
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": PORTAL_NAMESPACE}}
    account = yaml.safe_load((DEPLOY / "serviceaccount.yaml").read_text())
    account["metadata"]["namespace"] = PORTAL_NAMESPACE
    role = yaml.safe_load((DEPLOY / "clusterrole.yaml").read_text())
    binding = yaml.safe_load((DEPLOY / "clusterrolebinding.yaml").read_text())
    plane.apply([namespace, account, role, binding])
    return plane.service_account_kubeconfig(PORTAL_NAMESPACE, "quartermaster", kubeconfig)


class RealCluster:
    """What a cluster test needs, on the real control plane."""

    real = True

    def __init__(self, plane: ControlPlane, portal_kubeconfig: Path):
        self.plane = plane
        self.kubeconfig = portal_kubeconfig  # the portal's identity, like a deployment
        self.reset_counters()

    # -- counting what the portal wrote ---------------------------------------------------

    def reset_counters(self) -> None:
        # The API server logs a request's ResponseComplete event after it has answered, so a
        # write made just before the mark can reach the log just after it: count by when
        # the server received a request, not by where its event landed in the file.
        self._audit_mark = self.plane.audit_lines()
        self._audit_since = datetime.now(UTC)

    def writes(self) -> int:
        return len(self.portal_writes())

    def written_resources(self) -> set[str]:
        return {event["objectRef"]["resource"] for event in self.portal_writes()}

    def portal_writes(self) -> list[dict]:
        # Late events of earlier writes sit after the line mark; none of a later write before it.
        return [
            event
            for event in self.plane.writes_by(PORTAL_USER, since_line=self._audit_mark)
            if _received(event) >= self._audit_since
        ]

    # -- acting as Kueue's other users (admin) --------------------------------------------

    def client(self) -> KubeClient:
        from django.test import override_settings

        with override_settings(KUBECONFIG=str(self.plane.kubeconfig)):
            client = KubeClient(_configuration())
        client.enforce_rbac = False
        return client

    def get(self, kind: str, name: str, namespace: str = "", version: str = "v1beta2"):
        with self.client() as kube:
            return kube.get(ref(kind, version), name, namespace)

    def list(self, kind: str, version: str = "v1beta2") -> list[dict]:
        with self.client() as kube:
            return kube.list(ref(kind, version))

    def create(self, obj: dict, version: str = "v1beta2") -> dict:
        with self.client() as kube:
            return kube.create(ref(obj["kind"], version), obj)

    def patch(self, kind: str, name: str, patch: dict, namespace: str = "") -> Any:
        with self.client() as kube:
            return kube.patch(ref(kind, "v1beta2"), name, patch, namespace)

    def delete(self, kind: str, name: str, namespace: str = "") -> None:
        with self.client() as kube:
            kube.delete(ref(kind, "v1beta2"), name, namespace)

    def kubectl(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return self.plane.kubectl(*args, stdin=stdin)

    def apply(self, objects: list[dict]) -> None:
        self.plane.apply(objects)

    # -- between tests -------------------------------------------------------------------

    def wipe(self, timeout: float = 180.0) -> None:
        """Back to an empty cluster: workloads, queues, flavors, team namespaces, nodes.

        Pods are force-deleted and the nodes go last: a pod whose KWOK node is gone has
        nobody to confirm its end, and would hold its namespace in Terminating."""
        kubectl = self.plane.kubectl
        kubectl("delete", "jobs.batch,statefulsets.apps", "--all", "-A", "--wait=false")
        kubectl(
            "delete",
            "workloads.kueue.x-k8s.io,localqueues.kueue.x-k8s.io",
            "--all",
            "-A",
            "--wait=false",
        )
        names = kubectl(
            "get", "namespaces", "-o", "jsonpath={.items[*].metadata.name}"
        ).stdout.split()
        doomed = [n for n in names if n not in KEEP_NAMESPACES]
        self._force_delete_pods(doomed)
        if doomed:
            kubectl("delete", "namespace", *doomed, "--wait=false")
        kubectl("delete", KUEUE_CLUSTER_KINDS, "--all", "--wait=false")
        deadline = time.monotonic() + timeout
        self._wait_gone(deadline, lambda: self._leftovers(nodes=False), doomed)
        kubectl("delete", "nodes", "--all", "--wait=false")  # every node here is a KWOK node
        self._wait_gone(deadline, self._leftovers, doomed)

    def _force_delete_pods(self, namespaces: list[str]) -> None:
        for namespace in namespaces:
            self.plane.kubectl(
                "delete", "pods", "--all", "-n", namespace, "--grace-period=0", "--force",
                "--wait=false",
            )  # fmt: skip

    def _wait_gone(self, deadline: float, leftovers, doomed: list[str]) -> None:
        pushed = time.monotonic()
        while left := leftovers():
            if time.monotonic() > deadline:
                pytest.fail(f"real cluster not wiped in time: {left}")
            if time.monotonic() - pushed > 5:  # pods a controller made meanwhile
                self._force_delete_pods(doomed)
                pushed = time.monotonic()
            time.sleep(0.5)

    def _leftovers(self, nodes: bool = True) -> str:
        kinds = f"{KUEUE_CLUSTER_KINDS},namespaces,workloads.kueue.x-k8s.io"
        kinds += ",nodes" if nodes else ""
        done = self.plane.kubectl("get", kinds, "-A", "-o", "name")
        keep = {f"namespace/{n}" for n in KEEP_NAMESPACES}
        return " ".join(line for line in done.stdout.split() if line not in keep)


def suspended_job(
    name: str, namespace: str, queue: str, priority: str, gpus: int = 8, runs: str = "2h"
) -> dict:
    """A suspended batch Job of one pod asking for ``gpus``, for Kueue to admit; its
    KWOK pod runs for ``runs``."""
    amount = {"nvidia.com/gpu": str(gpus)}  # a real API server wants extended resources as limits
    container = {"name": "main", "image": "trainer",
                 "resources": {"requests": amount, "limits": dict(amount)}}  # fmt: skip
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace,
                     "labels": {"kueue.x-k8s.io/queue-name": queue,
                                "kueue.x-k8s.io/priority-class": priority}},
        "spec": {"parallelism": 1, "completions": 1, "suspend": True,
                 "template": {"metadata": {"annotations": {DURATION_ANNOTATION: runs}},
                              "spec": {"restartPolicy": "Never",
                                       "terminationGracePeriodSeconds": 1,
                                       "containers": [container]}}},
    }  # fmt: skip


def _received(event: dict) -> datetime:
    return datetime.fromisoformat(event["requestReceivedTimestamp"].replace("Z", "+00:00"))
