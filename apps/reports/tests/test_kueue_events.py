"""Kueue's Events on a Workload read back as the transitions they record."""

from __future__ import annotations

from datetime import UTC, datetime

from apps.reports.kueue_events import oldest, transitions

PREEMPTION = (
    "Preempted to accommodate a workload (UID: uid-of-b, JobUID: job-b) due to reclamation "
    "within the cohort while borrowing; preemptor path: /research/nlp; preemptee path: /research/vision"
)


def event(reason: str, first: str, last: str | None = None, *, message: str = "", kind="Workload"):
    return {
        "kind": "Event",
        "reason": reason,
        "message": message or reason,
        "involvedObject": {"kind": kind, "namespace": "team-vision", "name": "w", "uid": "uid-a"},
        "firstTimestamp": first,
        "lastTimestamp": last or first,
        "count": 1 if last is None else 2,
    }


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_a_preemption_and_the_readmission_after_it():
    found = [
        (uid, f.type, f.at, f.reason, f.detail)
        for e in (
            event("EvictedDueToPreempted", "2026-11-16T08:30:00Z", message=PREEMPTION),
            event("Preempted", "2026-11-16T08:30:00Z", message=PREEMPTION),
            event("QuotaReserved", "2026-11-16T08:45:00Z"),
            event("Admitted", "2026-11-16T08:45:00Z"),
        )
        for uid, f in transitions(e)
    ]
    assert found == [
        ("uid-a", "evicted", at("2026-11-16T08:30:00"), "Preempted", {}),
        ("uid-a", "preempted", at("2026-11-16T08:30:00"), "InCohortReclaimWhileBorrowing",
         {"preemptor_uid": "uid-of-b"}),
        ("uid-a", "quota_reserved", at("2026-11-16T08:45:00"), "QuotaReserved", {}),
        ("uid-a", "admitted", at("2026-11-16T08:45:00"), "Admitted", {}),
    ]  # fmt: skip


def test_an_aggregated_event_gives_its_first_and_last_occurrence():
    twice = event("Admitted", "2026-11-16T08:00:00Z", "2026-11-16T09:00:00Z")
    assert [f.at for _, f in transitions(twice)] == [
        at("2026-11-16T08:00:00"),
        at("2026-11-16T09:00:00"),
    ]


def test_other_reasons_and_other_objects_show_nothing():
    assert transitions(event("Pending", "2026-11-16T08:00:00Z")) == []
    assert transitions(event("Admitted", "2026-11-16T08:00:00Z", kind="Job")) == []


def test_oldest_is_how_far_back_the_events_reach():
    events = [
        event("Admitted", "2026-11-16T08:10:00Z"),
        event("QuotaReserved", "2026-11-16T07:55:00Z", "2026-11-16T08:20:00Z"),
        event("Admitted", "2026-11-16T06:00:00Z", kind="Job"),
    ]
    assert oldest(events) == at("2026-11-16T07:55:00")
    assert oldest([]) is None
