"""The checkpoint contract's two reports: the Workload annotation, and the line a stopped
trainer leaves in its termination message (docs/checkpoints.md)."""

from __future__ import annotations

from datetime import UTC, datetime

from informer.objects import termination_messages
from informer.workload import last_checkpoint, reported_checkpoint

AT_10 = datetime(2026, 3, 2, 9, 10, tzinfo=UTC)
AT_20 = datetime(2026, 3, 2, 9, 20, tzinfo=UTC)


def _stopped_pod(message: str, which: str = "state") -> dict:
    terminated = {"exitCode": 143, "reason": "Error", "message": message}
    return {
        "status": {"containerStatuses": [{"name": "trainer", which: {"terminated": terminated}}]}
    }


def _workload(annotation: str | None = None) -> dict:
    notes = {"quartermaster.io/last-checkpoint": annotation} if annotation else {}
    return {"metadata": {"annotations": notes}}


def test_the_line_is_read_among_whatever_else_the_trainer_says():
    message = "SIGTERM at step 4100\nquartermaster.io/last-checkpoint=2026-03-02T09:10:00Z\nbye"
    assert reported_checkpoint(message) == AT_10


def test_a_message_without_the_line_or_with_a_bad_time_reports_nothing():
    assert reported_checkpoint("OOMKilled") is None
    assert reported_checkpoint("quartermaster.io/last-checkpoint=soon") is None
    # No zone: not a time the contract allows, and not comparable with the others.
    assert reported_checkpoint("quartermaster.io/last-checkpoint=2026-03-02T09:10:00") is None


def test_termination_messages_come_from_this_and_the_last_run_of_each_container():
    assert termination_messages(_stopped_pod("a")) == ["a"]
    assert termination_messages(_stopped_pod("b", which="lastState")) == ["b"]
    assert termination_messages({"status": {}}) == []


def test_the_newest_report_wins_whichever_way_it_came():
    pod = _stopped_pod("quartermaster.io/last-checkpoint=2026-03-02T09:20:00Z")
    assert last_checkpoint(_workload("2026-03-02T09:10:00Z"), [pod]) == AT_20
    assert last_checkpoint(_workload(), [pod]) == AT_20
    older = _stopped_pod("quartermaster.io/last-checkpoint=2026-03-02T09:10:00Z")
    assert last_checkpoint(_workload("2026-03-02T09:20:00Z"), [older]) == AT_20
    assert last_checkpoint(_workload(), [_stopped_pod("bye")]) is None
