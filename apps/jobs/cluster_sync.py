"""Cluster side of notebooks and jobs: create, delete, and read status back.

``sync_status`` is the level-based pass: it reads the cluster once
(``cluster.observe``), derives every followed notebook's and job's state with the pure
functions of ``status`` and records it through the services. It also re-creates the
objects of notebooks and jobs whose creation task was lost, so a missed ``on_commit``
heals on the next run. ``record_status`` is its second half, which the watch
(``apps.jobs.watch``) calls for just the rows its events concern.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db.models import QuerySet
from django.utils import timezone

from apps.jobs import cluster
from apps.jobs import status as st
from apps.jobs.checkpoint_volume import mounted_claim
from apps.jobs.choices import InferenceState, JobState, NotebookState, SweepState
from apps.jobs.inference_sync import create_inference, sync_inference
from apps.jobs.manifests import JOB_LABEL, NOTEBOOK_LABEL, job_manifest, notebook_manifests
from apps.jobs.models import BatchJob, InferenceService, Notebook, Sweep
from apps.jobs.services.common import SYSTEM
from apps.jobs.services.jobs import JobStatus, apply_job_status, mark_job_created, refuse_job
from apps.jobs.services.notebooks import stop_notebook
from apps.jobs.services.sweeps import release_trials
from apps.jobs.services.upkeep import NotebookStatus, apply_status, mark_provisioned
from core.kube import KubeClient
from core.namespaces import is_protected, protected_error

# A row still waiting for its creation task this long after the request is re-driven.
STUCK_AFTER = timedelta(seconds=30)
DELETED = "its cluster objects were deleted outside the portal"


def provision_notebook(client: KubeClient, notebook_id: int) -> str:
    notebook = Notebook.objects.select_related("team", "owner", "pool__priority_tier", "flavor")
    notebook = notebook.filter(pk=notebook_id).first()
    if notebook is None or notebook.state != NotebookState.REQUESTED:
        return "skipped"
    if refusal := protected_error(notebook.namespace):
        stop_notebook(notebook, actor=SYSTEM, state=NotebookState.FAILED, reason=refusal)
        return "refused"
    cluster.create_all(client, notebook_manifests(notebook))
    if not mark_provisioned(notebook.pk):
        # Race: the notebook was stopped while we created its objects, and its
        # teardown may have run before they existed. Delete them ourselves.
        cluster.delete_notebook(client, notebook.namespace, notebook.name)
        return "stopped meanwhile"
    return "created"


def teardown_notebook(client: KubeClient, notebook_id: int) -> str:
    notebook = Notebook.objects.filter(pk=notebook_id).first()
    if notebook is None or notebook.is_active or is_protected(notebook.namespace):
        return "skipped"
    cluster.delete_notebook(client, notebook.namespace, notebook.name)
    return "deleted"


def create_job(client: KubeClient, job_id: int) -> str:
    job = BatchJob.objects.with_related().select_related("template").filter(pk=job_id).first()
    if job is None or job.state != JobState.SUBMITTED:
        return "skipped"
    if refusal := protected_error(job.namespace):
        refuse_job(job.pk, reason=refusal, now=timezone.now())
        return "refused"
    cluster.create_all(client, [job_manifest(job, checkpoint_claim=mounted_claim())])
    if not mark_job_created(job.pk):
        cluster.delete_job(client, job.namespace, job.name)  # cancelled meanwhile
        return "cancelled meanwhile"
    return "created"


def teardown_job(client: KubeClient, job_id: int) -> str:
    job = BatchJob.objects.filter(pk=job_id).first()
    if job is None or job.is_active or is_protected(job.namespace):
        return "skipped"
    cluster.delete_job(client, job.namespace, job.name)
    return "deleted"


class _Positions:
    """Visibility API answers, fetched once per LocalQueue and only when needed."""

    def __init__(self, client: KubeClient):
        self.client, self.cache = client, {}

    def of(self, namespace: str, workload: dict | None) -> int | None:
        if workload is None:
            return None
        # The LocalQueue the workload is in: the team's one, or its owner's own when the
        # queue is fair between users (docs/fair-sharing-between-users.md).
        key = (namespace, st.queue_name(workload))
        if key not in self.cache:
            self.cache[key] = cluster.pending_positions(self.client, *key)
        return self.cache[key].get(workload["metadata"]["name"])


def sync_status(client: KubeClient, *, now: datetime) -> dict[str, int]:
    """The level-based pass: every followed notebook and job against one read of everything."""
    # Rows first, then the cluster: a job created and marked queued after this read is
    # left to the next pass, instead of being missing from an older cluster read and
    # taken for deleted.
    notebooks, jobs = list(followed_notebooks()), list(followed_jobs())
    observed = cluster.observe(client)
    counts = record_status(client, observed, notebooks, jobs, now=now)
    counts["inference"] = sync_inference(client, observed, now=now)
    counts["released"] = release_open_sweeps(now)
    counts["reprovisioned"] = _redrive(client, now)
    return counts


def release_open_sweeps(now: datetime) -> int:
    """Release what every open sweep may: heals a release whose announcement was lost."""
    open_sweeps = Sweep.objects.filter(state=SweepState.OPEN).values_list("pk", flat=True)
    return sum(release_trials(pk, now=now) for pk in open_sweeps)


def followed_notebooks() -> QuerySet:
    return Notebook.objects.followed().select_related("pool", "flavor", "team")


def followed_jobs() -> QuerySet:
    return BatchJob.objects.followed().select_related("queue", "flavor", "owner")


def record_status(
    client: KubeClient,
    observed: cluster.Observed,
    notebooks: Iterable[Notebook],
    jobs: Iterable[BatchJob],
    *,
    now: datetime,
    workloads_by_uid: dict[str, dict] | None = None,
) -> dict[str, int]:
    """Derive and record the status of ``notebooks`` and ``jobs`` from ``observed``.

    ``observed`` may cover just these rows (``cluster.observe_owners``); then a row whose
    Workload it lacks is left alone rather than taken for one Kueue has not created yet.
    ``workloads_by_uid`` adds workloads known from elsewhere, to name preemptors.
    """
    by_owner = st.index_workloads(observed.workloads)
    by_uid = {**(workloads_by_uid or {})}
    by_uid.update({w["metadata"].get("uid", ""): w for w in observed.workloads})
    positions = _Positions(client)
    return {
        "notebooks": _sync_notebooks(notebooks, observed, by_owner, positions, now),
        "jobs": _sync_jobs(jobs, observed, by_owner, by_uid, positions, now),
    }


def _sync_notebooks(rows, observed, by_owner, positions, now) -> int:
    live = {(s["metadata"]["namespace"], s["metadata"]["name"]) for s in observed.statefulsets}
    changed = 0
    for nb in rows:
        if (nb.namespace, nb.name) not in live:
            changed += apply_status(nb, NotebookStatus(NotebookState.FAILED, DELETED), now=now)
            continue
        workload = by_owner.get((nb.namespace, "StatefulSet", nb.name))
        if workload is None and not observed.complete:
            continue
        pods = st.pods_of(observed.pods, nb.namespace, NOTEBOOK_LABEL, nb.name)
        phase = st.notebook_phase(workload, pods)
        need = st.Need(nb.flavor.name, nb.gpu_resource, nb.gpus)
        waiting = phase.state in (NotebookState.QUEUED, NotebookState.STARTING)
        result = NotebookStatus(
            state=phase.state,
            reason=phase.reason,
            pending_reason=st.pending_reason(workload, pods, observed.cluster_queues, need)
            if waiting
            else "",
            position=positions.of(nb.namespace, workload)
            if phase.state == NotebookState.QUEUED
            else None,
            workload_name=workload["metadata"]["name"] if workload else "",
            ready_since=st.ready_since(pods),
        )
        changed += apply_status(nb, result, now=now)
    return changed


def _sync_jobs(rows, observed, by_owner, by_uid, positions, now) -> int:
    jobs = {(j["metadata"]["namespace"], j["metadata"]["name"]): j for j in observed.jobs}
    changed = 0
    for job in rows:
        obj = jobs.get((job.namespace, job.name))
        if obj is None:
            changed += apply_job_status(job, JobStatus(JobState.FAILED, DELETED), now=now)
            continue
        workload = by_owner.get((job.namespace, "Job", job.name))
        if workload is None and not observed.complete:
            continue
        pods = st.pods_of(observed.pods, job.namespace, JOB_LABEL, job.name)
        phase = st.job_phase(obj, workload, pods)
        need = st.Need(job.flavor.name, job.gpu_resource, job.total_gpus)
        waiting = phase.state in (JobState.QUEUED, JobState.ADMITTED)
        result = JobStatus(
            state=phase.state,
            reason=phase.reason,
            pending_reason=st.pending_reason(workload, pods, observed.cluster_queues, need)
            if waiting
            else "",
            position=positions.of(job.namespace, workload)
            if phase.state == JobState.QUEUED
            else None,
            workload_name=workload["metadata"]["name"] if workload else "",
            history=tuple(st.history(workload, by_uid)) if workload else (),
            last_checkpoint=st.last_checkpoint(workload, pods) if workload else None,
        )
        changed += apply_job_status(job, result, now=now)
    return changed


def _redrive(client: KubeClient, now: datetime) -> int:
    done = 0
    stuck = Notebook.objects.filter(state=NotebookState.REQUESTED, created_at__lt=now - STUCK_AFTER)
    for pk in stuck.values_list("pk", flat=True):
        done += provision_notebook(client, pk) == "created"
    jobs = BatchJob.objects.filter(state=JobState.SUBMITTED, created_at__lt=now - STUCK_AFTER)
    for pk in jobs.values_list("pk", flat=True):
        done += create_job(client, pk) == "created"
    services = InferenceService.objects.filter(
        state=InferenceState.REQUESTED, created_at__lt=now - STUCK_AFTER
    )
    for pk in services.values_list("pk", flat=True):
        done += create_inference(client, pk) == "created"
    return done
