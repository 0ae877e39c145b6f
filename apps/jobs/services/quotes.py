"""Quotes: what would happen to a job if it were submitted now. Reads only, writes nothing."""

from __future__ import annotations

from dataclasses import replace

from django.conf import settings
from django.utils import timezone

from apps.jobs import verdict
from apps.jobs.arrival_history import expected_arrivals
from apps.jobs.checkpoint_volume import mounted_claim
from apps.jobs.cluster import cluster_queue_positions
from apps.jobs.expected_cost import expected_cost, run_time
from apps.jobs.manifests import job_manifest
from apps.jobs.models import BatchJob
from apps.jobs.preemption_history import tier_history
from apps.jobs.preemption_risk import policy_summary, preemption_risk, who_could_preempt
from apps.jobs.run_history import ExpectedRun, expected_run, expected_runs_of, recorded_runs
from apps.jobs.services.common import Principal
from apps.jobs.services.jobs import JobRequest, build_job
from apps.jobs.status import Need
from apps.queues.models import PriorityTier, TeamNamespace
from apps.queues.reconcile.observe import observe
from core import permissions
from core.errors import RuleBroken
from core.kube import KubeClient
from core.kueue_config import cluster_configuration
from core.prices import flavor_price
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
    arrivals = expected_arrivals(job, now=now, checkpoint_claim=settings.QM_CHECKPOINT_CLAIM)
    with client or KubeClient() as kube:
        objects = [*observe(kube, settings.KUEUE_API_VERSION).values(), *cluster_configuration()]
        workloads = [w for w in kube.list(workload_ref()) if not o.is_finished(w)]
        reported = _reported_positions(kube, objects)
    answer = verdict.admission_verdict(
        objects,
        workloads,
        job_manifest(job, checkpoint_claim=mounted_claim()),
        now_ms=round(now.timestamp() * 1000),
        need=Need(job.flavor.name, job.gpu_resource, job.total_gpus),
        may_see=_namespace_check(user),
        expected=_expected_runs(workloads, now=now),
        arrivals=arrivals.streams,
        arrivals_note=arrivals.note,
        reported=reported,
    )
    runs = recorded_runs({(job.template_id, job.team_id)}, now=now)
    run = expected_run(runs.get((job.template_id, job.team_id), []), job.max_runtime_seconds)
    answer = with_risk(answer, objects, job, run, now=now)
    return priced(answer, job.flavor.name, job.total_gpus, run, job.max_runtime_seconds)


def with_risk(
    answer: verdict.Verdict, objects: list[dict], job: BatchJob, run: ExpectedRun | None, *, now
) -> verdict.Verdict:
    """``answer`` with the risk of ``job`` being preempted over its expected ``run``
    (the recorded median, else its maximum run time), by its queue's policy and its
    tier's recorded rate."""
    tier = job.priority_tier
    higher = PriorityTier.objects.filter(value__gt=tier.value).exists()
    borrows = answer.borrows if answer.verdict == verdict.NOW else None
    threats = who_could_preempt(
        objects,
        job.queue.name,
        priority=tier.value,
        higher_tier=higher,
        borrows=borrows,
        borrowed_gpus=answer.borrowed_gpus,
        fair_sharing=settings.QM_KUEUE_FAIR_SHARING,
    )
    run_s, basis = run_time(run, job.max_runtime_seconds)
    risk = preemption_risk(
        threats,
        policy_summary(objects, job.queue.name, threats, borrows=borrows),
        tier_history(tier, now=now),
        run_hours=run_s / 3600,
        run_time_basis=basis,
    )
    return replace(answer, risk=risk)


def priced(
    answer: verdict.Verdict, flavor: str, gpus: int, run: ExpectedRun | None, bound_s: int
) -> verdict.Verdict:
    """``answer`` with the expected cost of ``gpus`` of ``flavor`` for ``run`` (at most
    ``bound_s``), priced as the reports price it."""
    price = flavor_price(flavor)
    if price is None:
        note = f"no price for {flavor}: no weekly report or price table has one"
        return replace(answer, cost_note=note)
    return replace(answer, cost=expected_cost(gpus, run, bound_s, price))


def _expected_runs(workloads: list[dict], *, now) -> dict[str, ExpectedRun]:
    """``namespace/name`` → the expected run of each Workload of one of our batch jobs
    whose template and team have recorded runs."""
    owners = {}
    for workload in workloads:
        kind, name = o.owner(workload)
        if kind == "Job":
            owners[(o.namespace_name(workload)[0], name)] = o.key(workload)
    jobs = BatchJob.objects.filter(
        namespace__in={ns for ns, _ in owners}, name__in={name for _, name in owners}
    )
    jobs = [j for j in jobs if (j.namespace, j.name) in owners]
    runs = expected_runs_of(jobs, now=now)
    return {owners[(j.namespace, j.name)]: runs[j.pk] for j in jobs if runs[j.pk] is not None}


def _reported_positions(kube: KubeClient, objects: list[dict]) -> dict[str, dict | None]:
    """The visibility API's pending positions of each ClusterQueue with pending work."""
    return {
        queue["metadata"]["name"]: cluster_queue_positions(kube, queue["metadata"]["name"])
        for queue in objects
        if queue.get("kind") == "ClusterQueue"
        and int((queue.get("status") or {}).get("pendingWorkloads") or 0) > 0
    }


def _namespace_check(user):
    """Whether ``user`` may see a workload of a namespace by name (admins: every one)."""
    if permissions.is_admin(user):
        return lambda _namespace: True
    visible = set(TeamNamespace.objects.workloads_visible_to(user).values_list("name", flat=True))
    return visible.__contains__
