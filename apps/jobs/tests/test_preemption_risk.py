"""The preemption risk's pure parts, worked out by hand: who may preempt by policy, the
admitted hours of a recorded history, and the probability from a rate."""

from datetime import UTC, datetime

import pytest

from apps.jobs.preemption_risk import (
    TierHistory,
    admitted_seconds,
    policy_summary,
    preemption_risk,
    who_could_preempt,
)


def cluster_queue(name, cohort=None, within="Never", reclaim="Never", borrow="Never", **extra):
    borrowing = {"policy": borrow, **extra}
    preemption = {
        "withinClusterQueue": within,
        "reclaimWithinCohort": reclaim,
        "borrowWithinCohort": borrowing,
    }
    spec = {"preemption": preemption, **({"cohortName": cohort} if cohort else {})}
    return {"kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def cohort(name, parent=None):
    return {"kind": "Cohort", "metadata": {"name": name}, "spec": {"parentName": parent}}


def test_a_higher_tier_of_the_same_queue_may_preempt_under_lower_priority():
    objects = [cluster_queue("vision", within="LowerPriority")]
    threats = who_could_preempt(objects, "vision", priority=100, higher_tier=True, borrows=False)
    assert threats == (
        "higher-priority workloads of the same queue (withinClusterQueue: LowerPriority)",
    )


def test_nobody_may_preempt_the_highest_tier_that_borrows_nothing():
    objects = [cluster_queue("vision", within="LowerPriority")]
    threats = who_could_preempt(objects, "vision", priority=200, higher_tier=False, borrows=False)
    assert threats == ()
    summary = policy_summary(objects, "vision", threats, borrows=False)
    assert summary == "none: its tier is the highest and it borrows nothing"


def test_older_equal_priority_work_may_preempt_under_lower_or_newer_equal():
    objects = [cluster_queue("vision", within="LowerOrNewerEqualPriority")]
    threats = who_could_preempt(objects, "vision", priority=200, higher_tier=False, borrows=False)
    assert threats == (
        "equal-priority workloads of the same queue queued before it "
        "(withinClusterQueue: LowerOrNewerEqualPriority)",
    )


def test_a_borrower_is_reclaimed_by_the_queues_of_its_cohort_tree_that_reclaim():
    # research ⊂ org; speech sits in org directly, so it is of the same tree; audio is
    # in an unrelated cohort and may not reclaim. vision borrows 8 GPUs.
    objects = [
        cohort("org"),
        cohort("research", parent="org"),
        cluster_queue("vision", cohort="research"),
        cluster_queue("nlp", cohort="research", reclaim="Any"),
        cluster_queue("speech", cohort="org", reclaim="LowerPriority"),
        cluster_queue("audio", cohort="elsewhere", reclaim="Any"),
        cluster_queue("ops", cohort="research", reclaim="Never", borrow="Never"),
    ]
    threats = who_could_preempt(
        objects, "vision", priority=100, higher_tier=True, borrows=True, borrowed_gpus=8
    )
    assert threats == (
        "queue nlp reclaiming the 8 GPUs it would borrow, at any priority "
        "(reclaimWithinCohort: Any)",
        "higher-priority workloads of queue speech reclaiming the 8 GPUs it would borrow "
        "(reclaimWithinCohort: LowerPriority)",
    )


def test_borrowing_preemptors_count_only_up_to_their_threshold_and_not_under_fair_sharing():
    objects = [
        cluster_queue("vision", cohort="research"),
        cluster_queue("nlp", cohort="research", reclaim="LowerPriority", borrow="LowerPriority"),
        cluster_queue(
            "speech",
            cohort="research",
            reclaim="LowerPriority",
            borrow="LowerPriority",
            maxPriorityThreshold=50,
        ),
    ]
    # priority 100 is above speech's threshold of 50: only nlp preempts it while borrowing.
    threats = who_could_preempt(objects, "vision", priority=100, higher_tier=True, borrows=True)
    assert threats[-1] == (
        "higher-priority workloads of queue nlp borrowing themselves "
        "(borrowWithinCohort: LowerPriority)"
    )
    fair = who_could_preempt(
        objects, "vision", priority=100, higher_tier=True, borrows=True, fair_sharing=True
    )
    assert all("borrowWithinCohort" not in t for t in fair)


def test_a_job_that_would_wait_names_the_cohort_threats_conditionally():
    objects = [
        cluster_queue("vision", cohort="research"),
        cluster_queue("nlp", cohort="research", reclaim="Any"),
    ]
    threats = who_could_preempt(objects, "vision", priority=100, higher_tier=True, borrows=None)
    assert threats == (
        "if it borrows when admitted: queue nlp reclaiming what it would borrow, at any "
        "priority (reclaimWithinCohort: Any)",
    )


def test_admitted_hours_count_only_the_window():
    since = datetime(2026, 12, 1, 0, 0, tzinfo=UTC)
    now = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    steps = [
        (datetime(2026, 11, 30, 23, 0, tzinfo=UTC), "admitted"),
        (datetime(2026, 12, 1, 1, 0, tzinfo=UTC), "preempted"),  # 00:00–01:00 in the window
        (datetime(2026, 12, 1, 1, 30, tzinfo=UTC), "requeued"),  # neither opens nor closes
        (datetime(2026, 12, 1, 2, 0, tzinfo=UTC), "admitted"),
        (datetime(2026, 12, 1, 4, 30, tzinfo=UTC), "finished"),  # 2.5 h
        (datetime(2026, 12, 1, 9, 0, tzinfo=UTC), "admitted"),  # still running: to 10:00, 1 h
    ]
    # 1 + 2.5 + 1 = 4.5 h = 16,200 s.
    assert admitted_seconds(steps, open_until=now, since=since, now=now) == 16_200


def test_the_probability_is_one_minus_exp_of_rate_times_run_hours():
    history = TierHistory("p2-standard", preemptions=3, admitted_hours=60.0, scope="…")
    risk = preemption_risk(
        ("someone",), "someone", history, run_hours=2.0, run_time_basis="recorded_p50"
    )
    # rate = 3 ÷ 60 h = 0.05 per hour; P = 1 − e^(−0.05 × 2) = 1 − e^(−0.1) = 0.0951626…
    assert risk.rate_per_hour == pytest.approx(0.05)
    assert risk.probability == pytest.approx(0.0951626, abs=1e-7)
    assert risk.as_dict()["probability"] == 0.0952


def test_no_admitted_hours_give_no_number_and_nobody_by_policy_gives_zero():
    empty = TierHistory("p1-high", preemptions=0, admitted_hours=0.0, scope="…")
    risk = preemption_risk(("someone",), "someone", empty, run_hours=2.0, run_time_basis="x")
    assert (risk.rate_per_hour, risk.probability) == (None, None)
    assert risk.note == (
        "no run of p1-high was recorded as admitted in the history window, so no rate"
    )
    safe = preemption_risk((), "none", empty, run_hours=2.0, run_time_basis="x")
    assert safe.probability == 0.0
    assert safe.note == "its queue's preemption policy lets nothing preempt it"


def test_a_queue_missing_in_the_cluster_gives_no_policy_and_no_number():
    threats = who_could_preempt([], "vision", priority=100, higher_tier=True, borrows=False)
    assert threats is None
    summary = policy_summary([], "vision", threats, borrows=False)
    assert summary == "not known: queue vision is missing in the cluster"
    history = TierHistory("p2-standard", preemptions=3, admitted_hours=60.0, scope="…")
    risk = preemption_risk(threats, summary, history, run_hours=2.0, run_time_basis="x")
    assert (risk.by_policy, risk.probability) == ((), None)
    assert risk.note == "its queue's preemption policy is not known"
