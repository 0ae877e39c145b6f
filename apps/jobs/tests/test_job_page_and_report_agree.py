"""One recorded Workload, read by its job's page and by the weekly report: the same
state, the same waits and the same work lost.

The simulated cluster serves each version of a 2-GPU job's Workload as Kueue would
write it: quota reserved at minute 5 while an admission check is pending, admitted at
minute 7, a checkpoint at minute 20, preempted at minute 30, admitted again at minute
50. The job's status is taken from each version as the sync does (``apps.jobs.status``),
the recorder records each version, and both are read back: the page as HTML, the report
as the week it loads. Admission (the Admitted condition, not the reservation) and
"ended by preemption" are decided by ``informer.workload`` for both.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from apps.jobs import status
from apps.jobs.models import BatchJob
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.jobs.services.jobs import JobStatus, apply_job_status, mark_job_created
from apps.reports import services
from apps.reports.compute.preemption import lost_gpu_hours
from apps.reports.compute.weeks import week_of
from apps.reports.loading import load_week
from apps.reports.models import WorkloadRecord
from core.dates import format_when
from informer.objects import parse_time
from informer.workload import LAST_CHECKPOINT
from testkit import workloads as w

pytestmark = pytest.mark.django_db(transaction=True)
GPUS = 2


@pytest.fixture
def sim(sim_without_kueue):
    """No Kueue controller: the test writes each version of the Workload itself."""
    return sim_without_kueue


@pytest.fixture(autouse=True)
def _stamps_after_now(monkeypatch):
    w.restart_clock(monkeypatch)


def reserved_awaiting_checks(minutes: float) -> dict:
    """Quota reserved, not admitted: an admission check has not passed yet."""
    patch = w.admitted(minutes, gpus=GPUS)
    patch["status"]["conditions"] = [
        w.condition("QuotaReserved", "True", "QuotaReserved", minutes),
        w.condition("Admitted", "False", "UnsatisfiedChecks", minutes),
    ]
    return patch


def admitted_after_checks(reserved: float, minutes: float) -> dict:
    patch = w.admitted(minutes, gpus=GPUS)
    patch["status"]["conditions"][0] = w.condition(
        "QuotaReserved", "True", "QuotaReserved", reserved
    )
    return patch


def versions(sim, job: BatchJob) -> list[dict]:  # noqa: F811 (the fixture)
    """The job's Workload as the cluster served it after each step of its life."""
    name, namespace = job.name, job.namespace
    served = [sim.create(w.workload(name, namespace=namespace, gpus=GPUS))]
    steps = [
        reserved_awaiting_checks(5),
        admitted_after_checks(5, 7),
        {"metadata": {"annotations": {LAST_CHECKPOINT: w.stamp(20)}}},
        w.preempted(30, "uid-of-b", 7),
        w.readmitted(50, evicted_at=30, gpus=GPUS),
    ]
    for patch in steps:
        subresource = "status" if "status" in patch else ""
        sim.patch("Workload", name, patch, namespace=namespace, subresource=subresource)
        served.append(sim.get("Workload", name, namespace=namespace))
    return served


def page_story(client, job: BatchJob, served: list[dict]) -> tuple[list[str], list, str]:
    """Sync the job from each version, then read its page: states seen, history rows, HTML."""
    assert mark_job_created(job.pk)  # as the sync does once the suspended Job exists
    states = []
    for workload in served:
        job.refresh_from_db()
        result = JobStatus(
            state=status.job_phase(None, workload, []).state,
            history=tuple(status.history(workload, {})),
            last_checkpoint=status.last_checkpoint(workload),
        )
        assert apply_job_status(job, result, now=w.T0 + timedelta(hours=1))
        job.refresh_from_db()
        states.append(job.state)
    client.force_login(job.owner)
    html = client.get(reverse("jobs:job", args=[job.pk])).content.decode()
    rows = re.findall(r"<tr><td>([^<]+)</td><td>([^<]+)</td>", html)
    return states, rows, html


def report_story(served: list[dict]) -> tuple[list[str], object]:
    outcomes = []
    for i, workload in enumerate(served):
        services.record_workload_events([("MODIFIED" if i else "ADDED", workload)])
        outcomes.append(WorkloadRecord.objects.get(uid=workload["metadata"]["uid"]).outcome)
    readmitted = w.T0 + timedelta(minutes=50)
    return outcomes, load_week(week_of(readmitted), now=readmitted + timedelta(minutes=1))


def test_the_job_page_and_the_report_tell_one_story(sim, client, scientist, queue, template):  # noqa: F811
    job = submit_job(
        scientist,
        JobRequest(template="pytorch-train", flavor="h100", gpus_per_pod=GPUS),
        actor=Principal(scientist),
    ).record
    served = versions(sim, job)
    created = parse_time(served[0]["metadata"]["creationTimestamp"])
    at = {m: w.T0 + timedelta(minutes=m) for m in (5, 7, 20, 30, 50)}

    states, rows, html = page_story(client, job, served)
    outcomes, week = report_story(served)

    # State, version by version: created, reserved (checks pending), admitted,
    # checkpointed, preempted, admitted again. Reserved is not admitted for either.
    assert states == ["queued", "queued", "admitted", "admitted", "queued", "admitted"]
    assert outcomes == ["pending", "pending", "running", "running", "pending", "running"]

    # Waits: creation → admission at minute 7 (not the reservation at 5), then the
    # preemption at 30 → re-admission at 50. The page lists exactly those steps.
    assert rows == [
        (format_when(job.created_at), "Submitted"),
        (format_when(at[7]), "Admitted"),
        (format_when(at[30]), "Preempted"),
        (format_when(at[50]), "Admitted"),
    ]
    waits = sorted((wait.kind, wait.start, wait.end) for wait in week.waits)
    assert waits == [
        ("initial", created.timestamp(), at[7].timestamp()),
        ("requeue", at[30].timestamp(), at[50].timestamp()),
    ]

    # Work lost: the checkpoint at 20 saved minutes 7–20; 30 − 20 = 10 minutes × 2 GPUs
    # = 20 GPU-minutes = 1/3 GPU-hour, on the page and in the report.
    assert "lost 20.0 GPU-minutes since the last checkpoint" in html
    (run,) = [r for r in week.runs if r.preempted]
    assert (run.start, run.end) == (at[7].timestamp(), at[30].timestamp())
    assert lost_gpu_hours(run) == (pytest.approx(20 / 60), True)
