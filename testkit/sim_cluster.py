"""The simulated cluster as a real subprocess, for tests that drive the portal against it.

``SimCluster`` runs ``python -m simcluster serve`` on a free port (and can stop and
restart it on the same port), talks to its ``/simcluster/`` hooks, and reads
objects through the portal's own client.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from apps.queues.reconcile.observe import ref
from core.kube import KubeClient, _configuration
from testkit.paths import REPO

LISTENING = re.compile(r"simcluster listening on http://127\.0\.0\.1:(\d+)")


class SimCluster:
    def __init__(
        self,
        workdir: Path,
        *,
        controller: bool = True,
        clock: str = "real",
        args: tuple[str, ...] = (),
    ):
        self.workdir = workdir
        self.args = args  # more ``serve`` options, e.g. ("--seed-history", "1")
        # Without the controller the server is a bare API server: tests that
        # fabricate Kueue's status by hand need nobody else writing it.
        self.controller = controller
        self.clock = clock
        self.kubeconfig = workdir / "kubeconfig"
        self.snapshot = workdir / "simcluster.json"
        self.port = 0
        self.process: subprocess.Popen | None = None

    def start(self) -> SimCluster:
        argv = [sys.executable, "-m", "simcluster", "serve", "--port", str(self.port)]
        argv += ["--kubeconfig-out", str(self.kubeconfig), "--snapshot", str(self.snapshot)]
        argv += ["--clock", self.clock] if self.controller else ["--no-controller"]
        argv += list(self.args)
        errors = open(self.workdir / "simcluster.err", "a")  # noqa: SIM115 (child keeps it)
        self.process = subprocess.Popen(
            argv, cwd=REPO, stdout=subprocess.PIPE, stderr=errors, text=True
        )
        line = self.process.stdout.readline()
        match = LISTENING.search(line)
        if not match:
            self.stop()
            errors.close()
            log = (self.workdir / "simcluster.err").read_text()[-2000:]
            pytest.fail(f"simcluster did not start: {line!r}\n{log}")
        self.port = int(match.group(1))
        return self

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=20)
        self.process = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def hook(self, path: str, method: str = "GET", body: dict | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.url}/simcluster/{path}", data, method=method)
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def writes(self) -> int:
        return self.hook("counters")["writes"]

    def written_resources(self) -> set[str]:
        """Resources the API clients wrote to since the counters were reset."""
        requests = self.hook("counters")["requests"]
        return {r["resource"] for r in requests if r["verb"] not in ("get", "list", "watch")}

    def reset_counters(self) -> None:
        self.hook("counters/reset", "POST")

    def fault(self, **spec: Any) -> dict:
        return self.hook("faults", "POST", spec)

    def clear_faults(self) -> None:
        self.hook("faults", "DELETE")

    def client(self) -> KubeClient:
        from django.test import override_settings

        with override_settings(KUBECONFIG=str(self.kubeconfig)):
            client = KubeClient(_configuration())
        # The tests also play Kueue and other users (workloads, status): not the portal's RBAC.
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

    def patch(self, kind: str, name: str, patch: dict, namespace: str = "", subresource=""):
        with self.client() as kube:
            target = ref(kind, "v1beta2")
            if subresource:
                return kube._call(
                    "PATCH",
                    target,
                    "patch",
                    target.path(namespace, name) + f"/{subresource}",
                    body=patch,
                    content_type="application/merge-patch+json",
                )
            return kube.patch(target, name, patch, namespace)

    def kubectl(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        argv = ["kubectl", "--kubeconfig", str(self.kubeconfig), *args]
        env = {**os.environ, "KUBECACHEDIR": str(self.workdir / "kubecache")}
        return subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env)
