"""Quotes: what would happen to a job if it were submitted now. Reads only, writes nothing."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from apps.jobs import verdict
from apps.jobs.manifests import job_manifest
from apps.jobs.services.common import Principal
from apps.jobs.services.jobs import JobRequest, build_job
from apps.jobs.status import Need
from apps.queues.models import TeamNamespace
from apps.queues.reconcile.observe import observe
from core import permissions
from core.errors import RuleBroken
from core.kube import KubeClient
from informer import objects as o
from informer.kinds import workload_ref


def quote_job(user, spec: JobRequest, *, actor: Principal, client: KubeClient | None = None):
    """The verdict on ``spec``: every submission rule is checked alike (a broken one is
    raised), except that a job that could never fit is the ``never`` verdict."""
    now = timezone.now()
    try:
        job = build_job(user, spec, actor=actor, now=now)
    except RuleBroken as exc:
        if exc.code != "never_fits":
            raise
        return verdict.never(exc.detail, field_name=exc.field)
    with client or KubeClient() as kube:
        objects = list(observe(kube, settings.KUEUE_API_VERSION).values())
        workloads = [w for w in kube.list(workload_ref()) if not o.is_finished(w)]
    return verdict.admission_verdict(
        objects,
        workloads,
        job_manifest(job, checkpoint_claim=settings.QM_CHECKPOINT_CLAIM),
        now_ms=round(now.timestamp() * 1000),
        need=Need(job.flavor.name, job.gpu_resource, job.total_gpus),
        may_see=_namespace_check(user),
    )


def _namespace_check(user):
    """Whether ``user`` may see a workload of a namespace by name (admins: every one)."""
    if permissions.is_admin(user):
        return lambda _namespace: True
    visible = set(TeamNamespace.objects.workloads_visible_to(user).values_list("name", flat=True))
    return visible.__contains__
