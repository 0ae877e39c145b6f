"""Notebook and job objects in the cluster, through ``core.kube`` only.

Creates are idempotent (an object that already exists counts as created), deletes
tolerate absence, and ``observe`` reads everything status needs in a fixed number
of list calls, whatever the number of notebooks and jobs; ``observe_owners`` reads
the same for a few of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from apps.jobs.manifests import JOB_LABEL, NOTEBOOK_LABEL
from apps.queues.kueue import GROUP, MANAGED_BY, MANAGER
from core.kube import KubeClient, KubeError, ResourceRef
from informer.kinds import JOB, POD, STATEFULSET, workload_ref

__all__ = ["JOB", "POD", "STATEFULSET", "workload_ref"]
SERVICE = ResourceRef("", "v1", "services", "Service", True)
REFS = {"StatefulSet": STATEFULSET, "Service": SERVICE, "Job": JOB}
# Kueue labels each Workload with the UID of the Job (or StatefulSet) it admits.
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
# Names per set-based selector, so a URL stays well under API servers' limits.
CHUNK = 100
# Answers of the visibility API that mean "not served here": fall back to queue order.
NO_VISIBILITY = frozenset({403, 404, 501, 503})


def cluster_queue_ref() -> ResourceRef:
    return ResourceRef(GROUP, settings.KUEUE_API_VERSION, "clusterqueues", "ClusterQueue", False)


def _visibility_ref() -> ResourceRef:
    return ResourceRef(f"visibility.{GROUP}", "v1beta2", "localqueues", "LocalQueue", True)


def cluster_queue_pending_ref() -> ResourceRef:
    """Kueue's visibility API: a ClusterQueue's pending workloads, in queue order."""
    return ResourceRef(f"visibility.{GROUP}", "v1beta2", "clusterqueues", "ClusterQueue", False)


def create_all(client: KubeClient, manifests: list[dict]) -> None:
    """Create each object; one that already exists (a retried task) is fine."""
    for manifest in manifests:
        try:
            client.create(REFS[manifest["kind"]], manifest)
        except KubeError as exc:
            if exc.code != 409 or exc.reason != "AlreadyExists":
                raise


def delete_notebook(client: KubeClient, namespace: str, name: str) -> None:
    client.delete(STATEFULSET, name, namespace)
    client.delete(SERVICE, name, namespace)


def delete_inference(client: KubeClient, namespace: str, name: str) -> None:
    """An inference service is the same two objects as a notebook: StatefulSet and Service."""
    delete_notebook(client, namespace, name)


def inference_objects(client: KubeClient, label: str) -> tuple[list[dict], list[dict]]:
    """(our StatefulSets carrying ``label``, every pod carrying it): inference status."""
    statefulsets = client.list(STATEFULSET, label_selector=f"{MANAGED_BY}={MANAGER},{label}")
    return statefulsets, client.list(POD, label_selector=label)


def delete_job(client: KubeClient, namespace: str, name: str) -> None:
    client.delete(JOB, name, namespace, propagation="Background")


@dataclass
class Observed:
    """One read of everything notebook and job status depends on."""

    workloads: list[dict] = field(default_factory=list)
    pods: list[dict] = field(default_factory=list)
    jobs: list[dict] = field(default_factory=list)
    statefulsets: list[dict] = field(default_factory=list)
    cluster_queues: list[dict] = field(default_factory=list)
    # False when only some owners' objects were read: a missing Workload proves nothing.
    complete: bool = True


def observe(client: KubeClient) -> Observed:
    managed = f"{MANAGED_BY}={MANAGER}"
    return Observed(
        workloads=client.list(workload_ref()),
        pods=client.list(POD, label_selector=f"{NOTEBOOK_LABEL}")
        + client.list(POD, label_selector=f"{JOB_LABEL}"),
        jobs=client.list(JOB, label_selector=f"{managed},{JOB_LABEL}"),
        statefulsets=client.list(STATEFULSET, label_selector=f"{managed},{NOTEBOOK_LABEL}"),
        cluster_queues=client.list(cluster_queue_ref()),
    )


def notebook_statefulsets(client: KubeClient) -> list[dict]:
    """Every StatefulSet that carries our notebook labels."""
    return client.list(STATEFULSET, label_selector=f"{MANAGED_BY}={MANAGER},{NOTEBOOK_LABEL}")


def observe_owners(
    client: KubeClient, *, notebooks: set[str], jobs: set[str], workloads: list[dict] = ()
) -> Observed:
    """What the status of these notebooks and jobs (by name) depends on, and no more.

    Set-based label selectors keep it to a few list calls per ``CHUNK`` names. Their
    Workloads are found by Kueue's ``job-uid`` label on the owners' UIDs; ``workloads``
    already in hand (from watch events) fill in any that label does not find.
    """
    managed = f"{MANAGED_BY}={MANAGER}"
    statefulsets = _labelled(client, STATEFULSET, NOTEBOOK_LABEL, notebooks, managed)
    jobs_found = _labelled(client, JOB, JOB_LABEL, jobs, managed)
    uids = {o["metadata"].get("uid", "") for o in statefulsets + jobs_found} - {""}
    found = _labelled(client, workload_ref(), JOB_UID_LABEL, uids)
    have = {w["metadata"].get("uid") for w in found}
    found += [w for w in workloads if w["metadata"].get("uid") not in have]
    return Observed(
        workloads=found,
        pods=_labelled(client, POD, NOTEBOOK_LABEL, notebooks)
        + _labelled(client, POD, JOB_LABEL, jobs),
        jobs=jobs_found,
        statefulsets=statefulsets,
        cluster_queues=client.list(cluster_queue_ref()),
        complete=False,
    )


def _labelled(
    client: KubeClient, ref: ResourceRef, label: str, values: set[str], extra: str = ""
) -> list[dict]:
    ordered, found = sorted(values), []
    for start in range(0, len(ordered), CHUNK):
        selector = f"{label} in ({','.join(ordered[start : start + CHUNK])})"
        found += client.list(ref, label_selector=f"{extra},{selector}" if extra else selector)
    return found


def pending_positions(client: KubeClient, namespace: str, local_queue: str) -> dict[str, int]:
    """Workload name → position in its LocalQueue, from the visibility API.

    1-based, as pages, API and docs show it: 1 is next to be admitted (Kueue counts from 0).
    """
    body = client.get(_visibility_ref(), f"{local_queue}/pendingworkloads", namespace) or {}
    return {
        item["metadata"]["name"]: int(item.get("positionInLocalQueue", 0)) + 1
        for item in body.get("items") or ()
    }


def cluster_queue_positions(client: KubeClient, cluster_queue: str) -> dict[str, int] | None:
    """``namespace/name`` → position in ``cluster_queue`` from the visibility API, 1-based
    (1 is admitted next; Kueue counts from 0); None when that API is not served."""
    try:
        body = client.get(cluster_queue_pending_ref(), f"{cluster_queue}/pendingworkloads")
    except KubeError as exc:
        if exc.code in NO_VISIBILITY:
            return None
        raise
    if body is None:
        return None
    return {
        f"{i['metadata'].get('namespace', '')}/{i['metadata'].get('name', '')}": int(
            i.get("positionInClusterQueue", 0)
        )
        + 1
        for i in body.get("items") or ()
    }
