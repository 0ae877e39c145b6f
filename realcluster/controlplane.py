"""A real Kubernetes control plane with the real Kueue, on loopback.

``ControlPlane(workdir).up()`` starts etcd, kube-apiserver, kube-controller-manager,
kube-scheduler, KWOK (fake nodes and pod life cycles) and Kueue, in that order, each
waited for; installs Kueue's CRDs, webhooks and visibility API from the Kueue module;
and writes an admin kubeconfig. ``down()`` stops them in reverse. The state file in
the workdir lets ``python -m realcluster down`` stop a cluster another process started.

Every write request reaches the API server's audit log (``audit.log``), which is how
tests count the writes a client made without any help from the server under test.
"""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import time
from pathlib import Path

import yaml

from realcluster import build_info, kueue_manifests, nodes, pki
from realcluster.processes import Component, StartupError, free_port, http_ok, insecure_tls

SERVICE_CIDR = "10.96.0.0/16"
# Kueue reads these fixed paths when it does not manage its own certificates.
KUEUE_METRICS_CERTS = Path("/etc/kueue/metrics/certs")
KUEUE_VISIBILITY_CERTS = Path("/visibility")
WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
CONTROLLERS = ",".join(
    [
        "job-controller",
        "statefulset-controller",
        "replicaset-controller",
        "deployment-controller",
        "garbage-collector-controller",
        "namespace-controller",
        "serviceaccount-controller",
        "clusterrole-aggregation-controller",
        "ttl-after-finished-controller",
        "pod-garbage-collector-controller",
        # Lifts a claim's kubernetes.io/pvc-protection finalizer once no pod uses it:
        # without it, a namespace holding a checkpoint claim never finishes deleting.
        "persistentvolumeclaim-protection-controller",
        # Lifts the not-ready taint that new nodes are created with, once KWOK reports them Ready.
        "node-lifecycle-controller",
    ]
)


def audit_policy(audited_users: tuple[str, ...] = ()) -> dict:
    """Every write by anyone, and every request (reads too) by ``audited_users``."""
    rules: list[dict] = []
    if audited_users:
        rules.append({"level": "Metadata", "users": list(audited_users)})
    rules += [{"level": "Metadata", "verbs": sorted(WRITE_VERBS)}, {"level": "None"}]
    return {
        "apiVersion": "audit.k8s.io/v1",
        "kind": "Policy",
        "omitStages": ["RequestReceived"],
        "rules": rules,
    }


class ControlPlane:
    def __init__(
        self,
        workdir: Path,
        *,
        fair_sharing: bool = False,
        admission_fair_sharing: bool = False,
        quiet_kueue: bool = True,
        audited_users: tuple[str, ...] = (),
    ):
        """``audited_users``: whose every request, reads included, the audit log keeps
        (``requests_by``); writes by anyone are always kept (``writes_by``)."""
        self.workdir = Path(workdir)
        self.fair_sharing = fair_sharing
        self.admission_fair_sharing = admission_fair_sharing
        self.audited_users = tuple(audited_users)
        self.quiet_kueue = quiet_kueue
        self.pki_dir = self.workdir / "pki"
        self.logs = self.workdir / "logs"
        self.kubeconfig = self.workdir / "kubeconfig"
        self.audit_log = self.logs / "audit.log"
        self.components: list[Component] = []
        self.ports: dict[str, int] = {}

    # -- life cycle -------------------------------------------------------------------

    def up(self, *, timeout: float = 180.0) -> ControlPlane:
        install = build_info.ensure_built()
        started = time.monotonic()
        self._fresh_workdir()
        self.ports = {
            name: free_port()
            for name in (
                "etcd",
                "etcd_peer",
                "apiserver",
                "kcm",
                "scheduler",
                "webhook",
                "kueue_health",
                "kueue_metrics",
                "visibility",
                "kwok",
            )
        }
        self._make_certificates()
        try:
            self._start_etcd(timeout)
            self._start_apiserver(timeout)
            self._write_kubeconfig()
            self._start(
                "kube-controller-manager", self._kcm_argv(), self._kube_healthz("kcm"), timeout
            )
            self._start(
                "kube-scheduler", self._scheduler_argv(), self._kube_healthz("scheduler"), timeout
            )
            self._install_kueue(install)
            self._start_kueue(timeout)
            self._start_kwok(timeout)
        except BaseException:
            self.down()
            raise
        self.startup_seconds = time.monotonic() - started
        self._save_state()
        return self

    def down(self) -> None:
        for component in reversed(self.components):
            component.stop()
        self.components = []
        state = self.workdir / "state.json"
        if state.exists():
            state.unlink()

    def __enter__(self) -> ControlPlane:
        return self.up()

    def __exit__(self, *_: object) -> None:
        self.down()

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.ports['apiserver']}"

    # -- helpers for clients -------------------------------------------------------------

    def kubectl(self, *args: str, stdin: str | None = None, kubeconfig: Path | None = None):
        argv = [
            str(build_info.binary("kubectl")),
            "--kubeconfig",
            str(kubeconfig or self.kubeconfig),
        ]
        return subprocess.run([*argv, *args], input=stdin, capture_output=True, text=True)

    def apply(self, objects: list[dict]) -> None:
        """Server-side apply as the admin (field manager ``realcluster``)."""
        text = yaml.safe_dump_all(objects, sort_keys=False)
        done = self.kubectl(
            "apply",
            "--server-side",
            "--force-conflicts",
            "--field-manager=realcluster",
            "-f",
            "-",
            stdin=text,
        )
        if done.returncode != 0:
            raise StartupError(f"kubectl apply failed: {done.stderr.strip()}")

    def writes_by(self, username: str, since_line: int = 0) -> list[dict]:
        """Write requests ``username`` made, from the API server's audit log."""
        return [
            event
            for event in self.requests_by(username, since_line)
            if event.get("verb") in WRITE_VERBS
        ]

    def requests_by(self, username: str, since_line: int = 0) -> list[dict]:
        """Audit events of ``username``'s requests (reads only for ``audited_users``)."""
        if not self.audit_log.exists():
            return []
        events = []
        with open(self.audit_log) as log:
            for number, line in enumerate(log):
                if number < since_line or not line.strip():
                    continue
                event = json.loads(line)
                if event["user"]["username"] == username:
                    events.append(event)
        return events

    def audit_lines(self) -> int:
        if not self.audit_log.exists():
            return 0
        with open(self.audit_log) as log:
            return sum(1 for _ in log)

    def service_account_kubeconfig(self, namespace: str, name: str, path: Path) -> Path:
        """A kubeconfig that authenticates as a ServiceAccount with a fresh token."""
        token = self.kubectl("create", "token", name, "-n", namespace, "--duration=24h")
        if token.returncode != 0:
            raise StartupError(f"token for {namespace}/{name}: {token.stderr.strip()}")
        path.write_text(yaml.safe_dump(self._kubeconfig_doc({"token": token.stdout.strip()})))
        return path

    # -- start-up steps ----------------------------------------------------------------------

    def _fresh_workdir(self) -> None:
        if self.workdir.exists():
            shutil.rmtree(self.workdir)
        for directory in (self.pki_dir, self.logs, self.workdir / "etcd", self.workdir / "webhook"):
            directory.mkdir(parents=True)

    def _make_certificates(self) -> None:
        self.ca = pki.Authority(self.pki_dir, "ca", "quartermaster-realcluster-ca")
        self.proxy_ca = pki.Authority(self.pki_dir, "front-proxy-ca", "front-proxy-ca")
        hosts = (
            "127.0.0.1",
            "localhost",
            "kubernetes",
            "kubernetes.default",
            "kubernetes.default.svc",
            "10.96.0.1",
        )
        self.serving = self.ca.issue("apiserver", "kube-apiserver", hosts=hosts, server=True)
        self.admin = self.ca.issue("admin", "admin", organizations=("system:masters",), client=True)
        self.proxy_client = self.proxy_ca.issue(
            "front-proxy-client", "front-proxy-client", client=True
        )
        webhook = self.ca.issue(
            "webhook", "kueue-webhook", hosts=("127.0.0.1", "localhost"), server=True
        )
        shutil.copy(webhook.cert, self.workdir / "webhook" / "tls.crt")
        shutil.copy(webhook.key, self.workdir / "webhook" / "tls.key")
        self.sa_key = pki.service_account_key(self.pki_dir)
        # Shared by every control plane on the machine: replace the files atomically so
        # a Kueue already running never reads half a certificate. Any of them will do:
        # nothing verifies these (the visibility APIService skips TLS verification).
        for directory in (KUEUE_METRICS_CERTS, KUEUE_VISIBILITY_CERTS):
            directory.mkdir(parents=True, exist_ok=True)
            for source, name in ((webhook.cert, "tls.crt"), (webhook.key, "tls.key")):
                staged = directory / f".{name}.{os.getpid()}"
                shutil.copy(source, staged)
                os.replace(staged, directory / name)

    def _start(self, name: str, argv: list[str], check, timeout: float) -> Component:
        component = Component(name, argv, self.logs).start()
        self.components.append(component)
        component.wait_ready(check, timeout)
        return component

    def _start_etcd(self, timeout: float) -> None:
        client = f"http://127.0.0.1:{self.ports['etcd']}"
        peer = f"http://127.0.0.1:{self.ports['etcd_peer']}"
        argv = [
            str(build_info.binary("etcd")),
            "--name=realcluster",
            f"--data-dir={self.workdir / 'etcd'}",
            f"--listen-client-urls={client}",
            f"--advertise-client-urls={client}",
            f"--listen-peer-urls={peer}",
            f"--initial-advertise-peer-urls={peer}",
            f"--initial-cluster=realcluster={peer}",
            "--unsafe-no-fsync",
            "--auto-compaction-retention=1",
            "--quota-backend-bytes=4294967296",
            "--log-level=warn",
        ]
        self._start("etcd", argv, http_ok(f"{client}/health", expect="true"), timeout)

    def _start_apiserver(self, timeout: float) -> None:
        policy = self.workdir / "audit-policy.yaml"
        policy.write_text(yaml.safe_dump(audit_policy(self.audited_users)))
        p = self.pki_dir
        argv = [
            str(build_info.binary("kube-apiserver")),
            f"--etcd-servers=http://127.0.0.1:{self.ports['etcd']}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--secure-port={self.ports['apiserver']}",
            f"--cert-dir={p}",
            f"--tls-cert-file={self.serving.cert}",
            f"--tls-private-key-file={self.serving.key}",
            f"--client-ca-file={self.ca.pair.cert}",
            f"--service-cluster-ip-range={SERVICE_CIDR}",
            "--allow-privileged=true",
            "--authorization-mode=Node,RBAC",
            # Loopback addresses are invalid in Endpoints: the `kubernetes` Service stays empty.
            "--endpoint-reconciler-type=none",
            f"--service-account-issuer=https://127.0.0.1:{self.ports['apiserver']}",
            f"--service-account-key-file={self.sa_key.cert}",
            f"--service-account-signing-key-file={self.sa_key.key}",
            f"--requestheader-client-ca-file={self.proxy_ca.pair.cert}",
            "--requestheader-allowed-names=front-proxy-client",
            "--requestheader-username-headers=X-Remote-User",
            "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
            f"--proxy-client-cert-file={self.proxy_client.cert}",
            f"--proxy-client-key-file={self.proxy_client.key}",
            f"--audit-policy-file={policy}",
            f"--audit-log-path={self.audit_log}",
            "--audit-log-format=json",
            "--audit-log-mode=blocking",
            "--max-requests-inflight=2000",
            "--max-mutating-requests-inflight=1000",
        ]
        context = ssl.create_default_context(cafile=str(self.ca.pair.cert))
        context.load_cert_chain(str(self.admin.cert), str(self.admin.key))
        ready = http_ok(f"{self.server}/readyz", context=context, expect="ok")
        self._start("kube-apiserver", argv, ready, timeout)

    def _kubeconfig_doc(self, user: dict) -> dict:
        return {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "realcluster",
                    "cluster": {
                        "server": self.server,
                        "certificate-authority": str(self.ca.pair.cert),
                    },
                }
            ],
            "users": [{"name": "user", "user": user}],
            "contexts": [
                {"name": "realcluster", "context": {"cluster": "realcluster", "user": "user"}}
            ],
            "current-context": "realcluster",
        }

    def _write_kubeconfig(self) -> None:
        admin = {"client-certificate": str(self.admin.cert), "client-key": str(self.admin.key)}
        self.kubeconfig.write_text(yaml.safe_dump(self._kubeconfig_doc(admin)))

    def _kube_healthz(self, port_name: str):
        return http_ok(f"https://127.0.0.1:{self.ports[port_name]}/healthz", context=insecure_tls())

    def _kcm_argv(self) -> list[str]:
        return [
            str(build_info.binary("kube-controller-manager")),
            f"--kubeconfig={self.kubeconfig}",
            f"--authentication-kubeconfig={self.kubeconfig}",
            f"--authorization-kubeconfig={self.kubeconfig}",
            "--leader-elect=false",
            "--bind-address=127.0.0.1",
            f"--secure-port={self.ports['kcm']}",
            f"--controllers={CONTROLLERS}",
            f"--root-ca-file={self.ca.pair.cert}",
            f"--service-account-private-key-file={self.sa_key.key}",
            f"--service-cluster-ip-range={SERVICE_CIDR}",
            "--kube-api-qps=200",
            "--kube-api-burst=400",
            "--concurrent-job-syncs=10",
        ]

    def _scheduler_argv(self) -> list[str]:
        return [
            str(build_info.binary("kube-scheduler")),
            f"--kubeconfig={self.kubeconfig}",
            f"--authentication-kubeconfig={self.kubeconfig}",
            f"--authorization-kubeconfig={self.kubeconfig}",
            "--leader-elect=false",
            "--bind-address=127.0.0.1",
            f"--secure-port={self.ports['scheduler']}",
            "--kube-api-qps=200",
            "--kube-api-burst=400",
        ]

    def _wait_established(self, deadline: float) -> None:
        while True:
            left = max(1, round(deadline - time.monotonic()))
            done = self.kubectl(
                "wait", "--for=condition=Established", f"--timeout={left}s", "crd", "--all"
            )
            if done.returncode == 0:
                return
            # kubectl gives up on a CRD whose status has no conditions yet instead of
            # waiting for them: ask again.
            if "accessor error" not in done.stderr or time.monotonic() > deadline:
                raise StartupError(f"Kueue's CRDs not established: {done.stderr.strip()}")
            time.sleep(0.2)

    def _install_kueue(self, install: Path) -> None:
        module = build_info.module_dir("KUEUE")
        url = f"https://127.0.0.1:{self.ports['webhook']}"
        namespace = {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": kueue_manifests.NAMESPACE},
        }
        self.apply([namespace, *kueue_manifests.crds(module, url, self.ca.pem)])
        self._wait_established(deadline=time.monotonic() + 60)
        # Established is not served: each new kind's storage answers 429 until its watch
        # cache is up, so wait until every Kueue kind lists.
        kinds = ",".join(
            c["metadata"]["name"] for c in kueue_manifests.crds(module, url, self.ca.pem)
        )
        deadline = time.monotonic() + 60
        while (listed := self.kubectl("get", kinds, "-A", "-o", "name")).returncode != 0:
            if time.monotonic() > deadline:
                raise StartupError(f"Kueue's kinds not served: {listed.stderr.strip()}")
            time.sleep(0.2)
        self.apply(kueue_manifests.webhook_configurations(module, url, self.ca.pem))
        self.apply(kueue_manifests.visibility_api(module, self.ports["visibility"]))

    def _start_kueue(self, timeout: float) -> None:
        config = kueue_manifests.configuration(
            webhook_port=self.ports["webhook"],
            cert_dir=self.workdir / "webhook",
            health_port=self.ports["kueue_health"],
            metrics_port=self.ports["kueue_metrics"],
            visibility_port=self.ports["visibility"],
            fair_sharing=self.fair_sharing,
            admission_fair_sharing=self.admission_fair_sharing,
        )
        path = self.workdir / "kueue-config.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        argv = [
            str(build_info.binary("kueue")),
            f"--config={path}",
            f"--kubeconfig={self.kubeconfig}",
            f"--zap-log-level={'error' if self.quiet_kueue else 'info'}",
        ]
        ready = http_ok(f"http://127.0.0.1:{self.ports['kueue_health']}/readyz")
        self._start("kueue", argv, ready, timeout)
        # Ready means the webhook server listens; wait until the API server can reach it.
        deadline = time.monotonic() + timeout
        probe = kueue_manifests.probe_flavor()
        while True:
            done = self.kubectl("apply", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(probe))
            if done.returncode == 0:
                return
            if time.monotonic() > deadline:
                raise StartupError(f"Kueue's webhooks unreachable: {done.stderr.strip()}")
            time.sleep(0.5)

    def _start_kwok(self, timeout: float) -> None:
        stages = self.workdir / "kwok-stages.yaml"
        documents = nodes.stage_documents(build_info.module_dir("KWOK"))
        stages.write_text(yaml.safe_dump_all(documents, sort_keys=False))
        argv = [
            str(build_info.binary("kwok")),
            f"--kubeconfig={self.kubeconfig}",
            f"--manage-nodes-with-annotation-selector={nodes.MANAGED_ANNOTATION}=fake",
            "--node-lease-duration-seconds=40",
            f"--server-address=127.0.0.1:{self.ports['kwok']}",
            f"--config={stages}",
        ]
        self._start(
            "kwok", argv, http_ok(f"http://127.0.0.1:{self.ports['kwok']}/healthz"), timeout
        )

    def _save_state(self) -> None:
        state = {
            "pids": {c.name: c.process.pid for c in self.components if c.process},
            "ports": self.ports,
            "kubeconfig": str(self.kubeconfig),
            "startup_seconds": round(self.startup_seconds, 2),
        }
        (self.workdir / "state.json").write_text(json.dumps(state, indent=2))


def stop_from_state(workdir: Path) -> bool:
    """Stop a cluster that another process started in ``workdir``; False if none ran."""
    state_file = Path(workdir) / "state.json"
    if not state_file.exists():
        return False
    pids = json.loads(state_file.read_text())["pids"]
    for pid in reversed(list(pids.values())):
        try:
            os.kill(pid, 15)
        except ProcessLookupError:
            continue
    deadline = time.monotonic() + 20
    for pid in pids.values():
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _running(pid):
            os.kill(pid, 9)
    state_file.unlink()
    return True


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
