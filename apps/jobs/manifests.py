"""Notebook and batch Job manifests as pure functions: specs (or saved rows) in, dicts out.

Nothing here touches the database or the cluster. Every pod is built by
``pod_spec`` with the same restricted security context, whatever the input:
users choose an image from the allow-list, a command, sizes and names, never
pod-spec fields. Requests equal limits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from apps.jobs.choices import TopologyMode
from apps.queues.kueue import MANAGED_BY, MANAGER, TEAM_LABEL
from apps.queues.user_queues import submission_queue
from informer.kinds import JOB_LABEL

if TYPE_CHECKING:
    from apps.jobs.models import BatchJob, Notebook
    from apps.jobs.models.base import SubmittedWorkload

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
MAX_EXEC_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
NOTEBOOK_LABEL = "quartermaster.io/notebook"
OWNER_LABEL = "quartermaster.io/owner"
CHECKPOINT_ANNOTATION = "quartermaster.io/checkpoint-interval"
# Kueue TAS: the pod set must (required) or should (preferred) fit in one domain of the
# level whose node label key is the value.
TOPOLOGY_ANNOTATIONS = {
    TopologyMode.REQUIRED: "kueue.x-k8s.io/podset-required-topology",
    TopologyMode.PREFERRED: "kueue.x-k8s.io/podset-preferred-topology",
}
# How long demo and test clusters (simulated, or KWOK's fake nodes) run a job's pods.
DURATION_ANNOTATION = "quartermaster.io/simulated-duration"
NOTEBOOK_PORT = 8888
SERVICE_PORT = 80  # the notebook Service's port, in front of NOTEBOOK_PORT
RUN_AS = 1000
# Seconds a preempted or cancelled trainer gets between SIGTERM and SIGKILL to write a checkpoint.
CHECKPOINT_GRACE_SECONDS = 120
NOTEBOOK_GRACE_SECONDS = 30
# A failed pod of an all-or-nothing job restarts the gang a few times, then the Job fails.
BACKOFF_LIMIT = 3
CHECKPOINT_ROOT = "/checkpoints"
# Where a stopped trainer leaves its last checkpoint's time (docs/checkpoints.md): the
# kubelet copies the file into the pod's status; Kubernetes' default path, made explicit.
TERMINATION_LOG = "/dev/termination-log"


@dataclass(frozen=True)
class NotebookSpec:
    name: str
    namespace: str
    team: str
    owner: str
    queue: str
    priority_class: str
    image: str
    gpu_resource: str
    gpus: int
    cpu: str
    memory: str
    base_path: str
    node_selector: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class JobSpec:
    name: str
    namespace: str
    team: str
    owner: str
    queue: str
    priority_class: str
    image: str
    command: tuple[str, ...]
    gpu_resource: str
    gpus_per_pod: int
    pods: int
    resources: dict[str, str] = field(default_factory=dict)
    max_runtime_seconds: int = 3600
    checkpoint_dir: str = ""
    checkpoint_interval_seconds: int | None = None
    checkpoint_claim: str = ""
    sim_duration_seconds: int | None = None
    node_selector: dict[str, str] = field(default_factory=dict)
    topology_label: str = ""  # a topology level's node label key, '' for none
    topology_mode: str = ""  # "required" or "preferred"


def _labels(*, team: str, owner: str, queue: str, priority_class: str, extra: dict) -> dict:
    return {
        MANAGED_BY: MANAGER,
        TEAM_LABEL: team,
        OWNER_LABEL: owner,
        QUEUE_LABEL: queue,
        PRIORITY_LABEL: priority_class,
        **extra,
    }


def restricted_container_security() -> dict:
    return {
        "allowPrivilegeEscalation": False,
        "privileged": False,
        "readOnlyRootFilesystem": True,
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def restricted_pod_security() -> dict:
    return {
        "runAsNonRoot": True,
        "runAsUser": RUN_AS,
        "runAsGroup": RUN_AS,
        "fsGroup": RUN_AS,
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def resources(requests: dict[str, str]) -> dict:
    """Requests = limits, so the pod is Guaranteed and nothing bursts past its quota."""
    return {"requests": dict(requests), "limits": dict(requests)}


def pod_spec(
    container: dict, volumes: list[dict], *, grace: int, restart: str, node_selector: dict
) -> dict:
    container = {**container, "securityContext": restricted_container_security()}
    spec = {
        "restartPolicy": restart,
        "terminationGracePeriodSeconds": grace,
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "hostNetwork": False,
        "hostPID": False,
        "hostIPC": False,
        "securityContext": restricted_pod_security(),
        "containers": [container],
        "volumes": volumes,
    }
    if node_selector:
        # The flavor's node labels: Kueue then only considers that flavor for the pod.
        spec["nodeSelector"] = dict(node_selector)
    return spec


def scratch_volumes(*names: str) -> list[dict]:
    """emptyDir volumes: the root filesystem is read-only, these are the writable places."""
    return [{"name": name, "emptyDir": {}} for name in names]


def render_notebook(spec: NotebookSpec) -> list[dict]:
    """A one-replica StatefulSet (Kueue pod-group workload) and its Service."""
    selector = {NOTEBOOK_LABEL: spec.name}
    labels = _labels(
        team=spec.team,
        owner=spec.owner,
        queue=spec.queue,
        priority_class=spec.priority_class,
        extra=selector,
    )
    requests = {"cpu": spec.cpu, "memory": spec.memory}
    if spec.gpus:
        requests[spec.gpu_resource] = str(spec.gpus)
    container = {
        "name": "notebook",
        "image": spec.image,
        "ports": [{"name": "http", "containerPort": NOTEBOOK_PORT}],
        "env": [
            {"name": "NOTEBOOK_BASE_PATH", "value": spec.base_path},
            {"name": "HOME", "value": "/home/jovyan"},
        ],
        "resources": resources(requests),
        "readinessProbe": {"httpGet": {"path": f"{spec.base_path}api", "port": NOTEBOOK_PORT}},
        "volumeMounts": [
            {"name": "home", "mountPath": "/home/jovyan"},
            {"name": "tmp", "mountPath": "/tmp"},
        ],
    }
    pod = pod_spec(
        container,
        scratch_volumes("home", "tmp"),
        grace=NOTEBOOK_GRACE_SECONDS,
        restart="Always",
        node_selector=spec.node_selector,
    )
    statefulset = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": spec.name, "namespace": spec.namespace, "labels": labels},
        "spec": {
            "replicas": 1,
            "serviceName": spec.name,
            "selector": {"matchLabels": selector},
            "template": {"metadata": {"labels": dict(selector)}, "spec": pod},
        },
    }
    service_labels = {k: v for k, v in labels.items() if k not in (QUEUE_LABEL, PRIORITY_LABEL)}
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": spec.name, "namespace": spec.namespace, "labels": service_labels},
        "spec": {
            "type": "ClusterIP",
            "selector": selector,
            "ports": [{"name": "http", "port": SERVICE_PORT, "targetPort": NOTEBOOK_PORT}],
        },
    }
    return [statefulset, service]


def _seconds(value: int) -> str:
    return f"{value}s"


def render_job(spec: JobSpec) -> dict:
    """A suspended batch/v1 Job that Kueue admits all-or-nothing (parallelism = completions)."""
    selector = {JOB_LABEL: spec.name}
    labels = _labels(
        team=spec.team,
        owner=spec.owner,
        queue=spec.queue,
        priority_class=spec.priority_class,
        extra={**selector, MAX_EXEC_LABEL: str(spec.max_runtime_seconds)},
    )
    annotations = {}
    if spec.checkpoint_interval_seconds:
        annotations[CHECKPOINT_ANNOTATION] = _seconds(spec.checkpoint_interval_seconds)
    if spec.sim_duration_seconds:
        annotations[DURATION_ANNOTATION] = _seconds(spec.sim_duration_seconds)
    requests = dict(spec.resources)
    requests[spec.gpu_resource] = str(spec.gpus_per_pod)
    env = [{"name": "JOB_NAME", "value": spec.name}]
    mounts = [{"name": "tmp", "mountPath": "/tmp"}]
    volumes = scratch_volumes("tmp")
    if spec.checkpoint_dir:
        path = f"{CHECKPOINT_ROOT}/{spec.checkpoint_dir}"
        env.append({"name": "CHECKPOINT_PATH", "value": path})
        # Only the job's own directory of the team's volume: a restarted pod finds what
        # the preempted one wrote there, and no other job's checkpoints.
        mounts.append({"name": "checkpoints", "mountPath": path, "subPath": spec.checkpoint_dir})
        volumes.append(_checkpoint_volume(spec.checkpoint_claim))
    container = {
        "name": "trainer",
        "image": spec.image,
        "command": list(spec.command),
        "env": env,
        "resources": resources(requests),
        "volumeMounts": mounts,
        "terminationMessagePath": TERMINATION_LOG,
        "terminationMessagePolicy": "File",
    }
    pod = pod_spec(
        container,
        volumes,
        grace=CHECKPOINT_GRACE_SECONDS,
        restart="Never",
        node_selector=spec.node_selector,
    )
    pod_annotations = dict(annotations)
    if spec.topology_label:
        pod_annotations[TOPOLOGY_ANNOTATIONS[spec.topology_mode]] = spec.topology_label
    job_spec = {
        "suspend": True,
        "parallelism": spec.pods,
        "completions": spec.pods,
        "backoffLimit": BACKOFF_LIMIT,
        "template": {
            "metadata": {"labels": dict(selector), "annotations": pod_annotations},
            "spec": pod,
        },
    }
    if spec.pods > 1:
        job_spec["completionMode"] = "Indexed"
    metadata = {"name": spec.name, "namespace": spec.namespace, "labels": labels}
    if annotations:
        metadata["annotations"] = dict(annotations)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": job_spec}


def _checkpoint_volume(claim: str) -> dict:
    if claim:
        return {"name": "checkpoints", "persistentVolumeClaim": {"claimName": claim}}
    return {"name": "checkpoints", "emptyDir": {}}


# ----- from rows --------------------------------------------------------------------------
# What the cluster gets for a saved notebook or job. Pure too: they read the row (and the
# rows it was fetched with), never the database; callers pass settings in.


def _workload_fields(row: SubmittedWorkload) -> dict:
    """What a notebook's and a job's specs take alike from their rows."""
    return {
        "name": row.name,
        "namespace": row.namespace,
        "team": row.team.slug,
        "owner": row.owner.get_username(),
        "image": row.image,
        "gpu_resource": row.gpu_resource,
        "node_selector": dict(row.flavor.node_labels or {}),
    }


def notebook_manifests(notebook: Notebook) -> list[dict]:
    """The StatefulSet and Service of ``notebook`` (fetched with team, owner, pool's
    priority tier and flavor)."""
    spec = NotebookSpec(
        **_workload_fields(notebook),
        queue=notebook.pool.name,
        priority_class=notebook.pool.priority_tier.name,
        gpus=notebook.gpus,
        cpu=notebook.cpu,
        memory=notebook.memory,
        base_path=f"/{notebook.namespace}/{notebook.name}/",
    )
    return render_notebook(spec)


def job_manifest(job: BatchJob, *, checkpoint_claim: str) -> dict:
    """The suspended Job of ``job`` (fetched with team, owner, queue, tier and flavor);
    ``checkpoint_claim`` is the claim to mount (``checkpoint_volume.mounted_claim``),
    '' for a scratch emptyDir."""
    resources = {k: v for k, v in (("cpu", job.cpu), ("memory", job.memory)) if v}
    spec = JobSpec(
        **_workload_fields(job),
        queue=submission_queue(job.queue, job.owner.get_username()),
        priority_class=job.priority_tier.name,
        command=tuple(job.command),
        gpus_per_pod=job.gpus_per_pod,
        pods=job.pods,
        resources=resources,
        max_runtime_seconds=job.max_runtime_seconds,
        checkpoint_dir=job.checkpoint_dir,
        checkpoint_interval_seconds=job.checkpoint_interval_seconds,
        checkpoint_claim=checkpoint_claim,
        sim_duration_seconds=job.sim_duration_seconds,
        topology_label=job.topology_label,
        topology_mode=job.topology_mode,
    )
    return render_job(spec)
