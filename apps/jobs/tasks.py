"""Celery entry points of notebooks and jobs. Thin: each takes ids, re-reads, calls one function.

Every task is safe to run twice or late: creation skips rows that moved on,
deletion skips rows that are still active, and status writes are conditional.
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from apps.jobs import cluster_sync, inference_sync, services
from apps.jobs.models import InteractivePool
from apps.jobs.services import common, sweeps
from core import prometheus
from core.kube import KubeClient, KubeError
from core.retrying import task_countdown


def _cluster_call(task, function, object_id: int) -> str:
    if not settings.QM_CLUSTER_SYNC:
        return "cluster sync disabled"
    try:
        with KubeClient() as client:
            return function(client, object_id)
    except KubeError as exc:
        if exc.transient:
            raise task.retry(countdown=task_countdown(task.request.retries), exc=exc) from None
        raise


@shared_task(bind=True, soft_time_limit=60, max_retries=10)
def provision_notebook_task(self, notebook_id: int) -> str:
    """Create a requested notebook's StatefulSet and Service."""
    return _cluster_call(self, cluster_sync.provision_notebook, notebook_id)


@shared_task(bind=True, soft_time_limit=60, max_retries=10)
def teardown_notebook_task(self, notebook_id: int) -> str:
    """Delete an ended notebook's objects."""
    return _cluster_call(self, cluster_sync.teardown_notebook, notebook_id)


@shared_task(bind=True, soft_time_limit=60, max_retries=10)
def submit_job_task(self, job_id: int) -> str:
    """Create a submitted job's suspended batch/v1 Job."""
    return _cluster_call(self, cluster_sync.create_job, job_id)


@shared_task(bind=True, soft_time_limit=60, max_retries=10)
def teardown_job_task(self, job_id: int) -> str:
    """Delete a cancelled job's Job (and its pods)."""
    return _cluster_call(self, cluster_sync.teardown_job, job_id)


@shared_task(bind=True, soft_time_limit=60, max_retries=10)
def create_inference_task(self, service_id: int) -> str:
    """Create a requested inference service's StatefulSet and Service."""
    return _cluster_call(self, inference_sync.create_inference, service_id)


@shared_task(bind=True, soft_time_limit=60, max_retries=10)
def teardown_inference_task(self, service_id: int) -> str:
    """Delete a stopped inference service's objects."""
    return _cluster_call(self, inference_sync.teardown_inference, service_id)


@shared_task(soft_time_limit=60)
def release_sweep_trials_task(sweep_id: int) -> int:
    """Release a sweep's next trials after one ended (the status sync also does, each pass)."""
    return sweeps.release_trials(sweep_id)


def _queue(task):
    return lambda sender, object_id, **_: task.delay(object_id)


# The services announce work after commit; each announcement queues its task.
for _signal, _task in (
    (common.notebook_to_provision, provision_notebook_task),
    (common.notebook_to_tear_down, teardown_notebook_task),
    (common.job_to_submit, submit_job_task),
    (common.job_to_tear_down, teardown_job_task),
    (common.sweep_to_release, release_sweep_trials_task),
    (common.inference_to_create, create_inference_task),
    (common.inference_to_tear_down, teardown_inference_task),
):
    _signal.connect(_queue(_task), weak=False, dispatch_uid=_task.name)


@shared_task(soft_time_limit=120)
def sync_jobs_status_task() -> dict:
    """Read Workloads, Jobs and pods once; record states, positions, reasons, history."""
    if not settings.QM_CLUSTER_SYNC:
        return {"skipped": "cluster sync disabled"}
    try:
        with KubeClient() as client:
            return cluster_sync.sync_status(client, now=timezone.now())
    except KubeError as exc:
        return {"error": exc.describe()}  # the next scheduled run is the retry


@shared_task(soft_time_limit=120)
def expire_notebooks_task() -> dict:
    """Warn notebooks near their TTL and stop the expired ones."""
    return services.expire_notebooks(now=timezone.now())


@shared_task(soft_time_limit=120)
def cull_idle_notebooks_task() -> dict:
    """Warn, then cull, notebooks whose GPUs stayed idle for the pool's window."""
    pool = InteractivePool.objects.current()
    if pool is None or not settings.PROMETHEUS_URL:
        return {"skipped": "no pool or no PROMETHEUS_URL"}
    now = timezone.now()
    try:
        peaks = prometheus.peak_gpu_utilization(pool.idle_window_minutes, at=now)
    except prometheus.MetricsUnavailable as exc:
        return {"error": str(exc)}
    return services.cull_idle_notebooks(peaks, now=now)
