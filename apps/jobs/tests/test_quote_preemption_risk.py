"""A quote's preemption risk, on the simulated cluster over HTTP, worked out by hand.

vision's queue has 16 h100 GPUs of its own in the cohort "research", nlp's 16 h100
(fixtures); tiers are interactive (1000), p1-high (200), p2-standard (100), p3-low (10),
and every job below is p2-standard unless it says otherwise.
"""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from apps.jobs.choices import JobEventKind, JobState
from apps.jobs.models import BatchJob, JobEvent
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.queues.reconcile.run import reconcile
from testkit.clients import api_as
from testkit.factories import quota, set_policy

pytestmark = pytest.mark.django_db

EIGHT = {
    "template": "pytorch-train",
    "flavor": "h100",
    "gpus_per_pod": 8,
    "priority_tier": "p2-standard",
}
NEVER = {
    "reclaim_within_cohort": "Never",
    "within_cluster_queue": "Never",
    "borrow_within_cohort": "Never",
    "borrow_max_priority_threshold": None,
}


def quote(user, body: dict) -> dict:
    response = api_as(user).post("/api/v1/quotes/", body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def recorded_job(user, steps: list[tuple[float, str]], **request) -> None:
    """A finished job of ``user`` whose history is ``steps``: (hours ago, event kind)."""
    job, _ = submit_job(user, JobRequest(**{**EIGHT, **request}), actor=Principal(user))
    now = timezone.now()
    for hours, kind in steps:
        at = now - timedelta(hours=hours)
        JobEvent.objects.create(job=job, at=at, kind=kind, key=f"{kind}:{hours}")
    BatchJob.objects.filter(pk=job.pk).update(
        state=JobState.SUCCEEDED,
        admitted_at=now - timedelta(hours=steps[0][0]),
        ended_at=now - timedelta(hours=steps[-1][0]),
    )


def test_a_job_of_a_lower_tier_carries_its_tiers_recorded_rate(
    sim, scientist, lead, queue, template, admin
):
    set_policy(queue, admin, preemption={**NEVER, "within_cluster_queue": "LowerPriority"})
    reconcile(trigger="manual")
    A, P, F = JobEventKind.ADMITTED, JobEventKind.PREEMPTED, JobEventKind.FINISHED
    # p2-standard: one job admitted 10 h ago, preempted 8 h ago (2 h), admitted again 7 h
    # ago and finished 5 h ago (2 h); another admitted 4 h ago, finished 2 h ago (2 h).
    recorded_job(scientist, [(10, A), (8, P), (7, A), (5, F)])
    recorded_job(scientist, [(4, A), (2, F)])
    # A p1-high job's preemption is another tier's: not counted.
    recorded_job(lead, [(6, A), (3, P)], priority_tier="p1-high")

    body = quote(scientist, {**EIGHT, "max_runtime_minutes": 240})

    assert body["verdict"] == "now"
    risk = body["preemption_risk"]
    assert risk["by_policy"] == [
        "higher-priority workloads of the same queue (withinClusterQueue: LowerPriority)"
    ]
    assert risk["tier"] == "p2-standard"
    # 1 preemption over 2 + 2 + 2 = 6 admitted hours: 1/6 = 0.166667 per hour. The three
    # recorded jobs (vision, pytorch-train) succeeded after 5, 2 and 3 h from their first
    # admission: the median run is 3 h (under the 4 h maximum).
    # P = 1 − e^(−3/6) = 1 − e^(−0.5) = 0.393469…
    assert (risk["preemptions"], risk["admitted_hours"]) == (1, 6.0)
    assert risk["rate_per_hour"] == 0.166667
    assert (risk["run_hours"], risk["run_time_basis"]) == (3.0, "recorded_p50")
    assert risk["probability"] == 0.3935
    assert risk["scope"] == "batch jobs of tier p2-standard in every queue, last 28 days"


def test_the_command_prints_who_may_preempt_and_how_likely(
    sim, scientist, queue, template, admin, tmp_path
):
    set_policy(queue, admin, preemption={**NEVER, "within_cluster_queue": "LowerPriority"})
    reconcile(trigger="manual")
    A, P = JobEventKind.ADMITTED, JobEventKind.PREEMPTED
    # Two preemptions over 4 admitted hours (3 h + 1 h): 0.5 per hour. Recorded runs, first
    # admission to end: 3 h and 1 h, median 1 + 0.5 × (3 − 1) = 2 h (under the 4 h maximum).
    # P = 1 − e^(−0.5 × 2) = 1 − e^(−1) = 0.632120…
    recorded_job(scientist, [(6, A), (3, P)])
    recorded_job(scientist, [(2, A), (1, P)])
    path = tmp_path / "job.yaml"
    path.write_text(
        "template: pytorch-train\nflavor: h100\ngpus_per_pod: 8\n"
        "priority_tier: p2-standard\nmax_runtime_minutes: 240\n"
    )
    out = StringIO()
    call_command("quote", str(path), "--as", "scientist", stdout=out)
    assert out.getvalue().splitlines()[-2:] == [
        "preempted by: higher-priority workloads of the same queue "
        "(withinClusterQueue: LowerPriority)",
        "preemption risk: 63.2% over 2.0 h (recorded_p50): 2 preemptions in 4.0 admitted "
        "hours (batch jobs of tier p2-standard in every queue, last 28 days)",
    ]


def test_a_borrower_names_the_queue_that_would_reclaim_its_borrowed_gpus(
    sim, scientist, queue, other_queue, template, admin
):
    set_policy(queue, admin, quotas=[quota("h100", "8")], preemption=NEVER)
    set_policy(other_queue, admin, preemption={**NEVER, "reclaim_within_cohort": "Any"})
    reconcile(trigger="manual")

    # 2 pods × 8 = 16 GPUs on vision's 8 of its own: it borrows 16 − 8 = 8 of nlp's.
    body = quote(scientist, {**EIGHT, "pods": 2})

    assert (body["verdict"], body["borrows"]) == ("now", True)
    risk = body["preemption_risk"]
    assert risk["by_policy"] == [
        "queue nlp reclaiming the 8 GPUs it would borrow, at any priority "
        "(reclaimWithinCohort: Any)"
    ]
    # No p2-standard job was ever admitted: no rate and no probability, and why.
    assert (risk["admitted_hours"], risk["rate_per_hour"], risk["probability"]) == (0, None, None)
    assert risk["note"] == (
        "no run of p2-standard was recorded as admitted in the history window, so no rate"
    )


def test_nobody_may_preempt_a_job_whose_queue_preempts_nothing_and_that_borrows_nothing(
    sim, scientist, queue, template, admin
):
    reconcile(trigger="manual")
    body = quote(scientist, EIGHT)
    risk = body["preemption_risk"]
    assert risk["by_policy"] == []
    assert risk["policy_summary"] == (
        "none: its queue preempts nothing within itself (withinClusterQueue: Never) "
        "and it borrows nothing"
    )
    assert risk["probability"] == 0.0
