"""One recorded Workload, read by a job page, the live view and the weekly report.

The simulated cluster serves each version of a 2-GPU Workload as Kueue would write it:
admitted at minute 5, a checkpoint at minute 20, preempted at minute 30, admitted again
at minute 50. Every reader gets the same versions and must tell the same story: the
same state at each version, the same wait for the second admission, the same work lost.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.jobs import status
from apps.jobs.choices import JobEventKind, JobState
from apps.live import compute
from apps.reports import services
from apps.reports.choices import Outcome
from apps.reports.compute.preemption import lost_gpu_hours
from apps.reports.compute.weeks import week_of
from apps.reports.loading import load_week
from apps.reports.models import WorkloadRecord
from informer.objects import parse_time
from informer.workload import LAST_CHECKPOINT
from testkit import workloads as w

pytestmark = pytest.mark.django_db(transaction=True)
NAME, NAMESPACE, GPUS = "train-a", "team-vision", 2
MINUTE = 60


def versions(sim) -> list[dict]:
    """The Workload as the cluster served it after each step of its life."""
    served = [sim.create(w.workload(NAME, gpus=GPUS))]
    steps = [
        w.admitted(5, gpus=GPUS),
        {"metadata": {"annotations": {LAST_CHECKPOINT: w.stamp(20)}}},
        w.preempted(30, "uid-of-b", 5),
        w.readmitted(50, evicted_at=30, gpus=GPUS),
    ]
    for patch in steps:
        subresource = "status" if "status" in patch else ""
        sim.patch("Workload", NAME, patch, namespace=NAMESPACE, subresource=subresource)
        served.append(sim.get("Workload", NAME, namespace=NAMESPACE))
    return served


def job_story(served: list[dict]) -> tuple[list[str], dict[str, status.HistoryEntry]]:
    """Job status as the sync computes it from each version: phase and history."""
    phases, history = [], {}
    for workload in served:
        phases.append(status.job_phase(None, workload, []).state)
        history.update({entry.key: entry for entry in status.history(workload, {})})
    return phases, history


def report_story(served: list[dict]) -> tuple[list[str], object]:
    """The recorder's outcome after each version, then the week the report loads."""
    outcomes = []
    for i, workload in enumerate(served):
        services.record_workload_events([("MODIFIED" if i else "ADDED", workload)])
        outcomes.append(WorkloadRecord.objects.get(name=NAME).outcome)
    readmitted = w.T0 + timedelta(minutes=50)
    return outcomes, load_week(week_of(readmitted), now=readmitted + timedelta(minutes=1))


def test_a_job_page_the_live_view_and_the_report_tell_one_story(sim):
    served = versions(sim)
    created = parse_time(served[0]["metadata"]["creationTimestamp"])
    at = {m: w.T0 + timedelta(minutes=m) for m in (5, 20, 30, 50)}

    # State, version by version: created, admitted, checkpointed, preempted, admitted again.
    live = [compute.workload_state(v) for v in served]
    phases, history = job_story(served)
    outcomes, week = report_story(served)
    assert live == ["pending", "admitted", "admitted", "pending", "admitted"]
    assert phases == [JobState.QUEUED, *[JobState.ADMITTED] * 2, JobState.QUEUED, JobState.ADMITTED]
    assert outcomes == [Outcome.PENDING, *[Outcome.RUNNING] * 2, Outcome.PENDING, Outcome.RUNNING]
    assert compute.workload_row(served[3], "vision", 0)["waiting_reason"] == "PendingEvaluation"

    # Waits: creation → minute 5, then preemption at 30 → re-admission at 50 (20 minutes).
    admissions = sorted(e.at for e in history.values() if e.kind == JobEventKind.ADMITTED)
    (preempted,) = [e for e in history.values() if e.kind == JobEventKind.PREEMPTED]
    assert admissions == [at[5], at[50]] and preempted.at == at[30]
    waits = sorted((wait.kind, wait.start, wait.end) for wait in week.waits)
    assert waits == [
        ("initial", created.timestamp(), at[5].timestamp()),
        ("requeue", at[30].timestamp(), at[50].timestamp()),
    ]
    assert (admissions[1] - preempted.at).total_seconds() == 20 * MINUTE

    # Work lost: the checkpoint at 20 saved the first 15 minutes; 10 minutes × 2 GPUs lost.
    checkpoint = status.last_checkpoint(served[3])
    lost = status.work_lost(preempted.at, admissions[0], checkpoint)
    assert lost == status.WorkLost(10 * MINUTE, "checkpoint")
    (run,) = [r for r in week.runs if r.preempted]
    assert (run.start, run.end) == (at[5].timestamp(), at[30].timestamp())
    assert lost_gpu_hours(run) == (pytest.approx(GPUS * 10 / 60), True)
