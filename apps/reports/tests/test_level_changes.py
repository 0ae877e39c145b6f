"""What one workload's transitions do to its team's levels, worked out by hand
(``compute.level_changes``, pure)."""

from __future__ import annotations

from apps.reports.compute.level_changes import level_changes, per_minute


def test_a_preempted_workload_leaves_the_queue_runs_waits_again_and_runs():
    steps = [
        ("created", 0.0), ("quota_reserved", 60.0), ("admitted", 60.0),
        ("checkpoint", 600.0), ("preempted", 900.0), ("evicted", 900.0),
        ("requeued", 900.0), ("quota_reserved", 1500.0), ("admitted", 1500.0),
        ("finished", 4000.0), ("deleted", 4100.0),
    ]  # fmt: skip
    # 4 GPUs: (Δ in use, Δ pending workloads, Δ pending GPUs)
    assert level_changes(4, steps) == [
        (0.0, (0, 1, 4)),  # created: in the queue with its 4 GPUs
        (60.0, (4, -1, -4)),  # admitted (the reservation alone changes nothing)
        (900.0, (-4, 1, 4)),  # evicted: back in the queue; requeued adds nothing more
        (1500.0, (4, -1, -4)),  # admitted again
        (4000.0, (-4, 0, 0)),  # finished; the later deletion changes nothing
    ]


def test_a_workload_deleted_while_pending_leaves_the_queue():
    assert level_changes(1, [("created", 0.0), ("pending", 5.0), ("deleted", 130.0)]) == [
        (0.0, (0, 1, 1)),
        (130.0, (0, -1, -1)),
    ]


def test_changes_in_one_minute_add_up():
    changes = [(60.0, (0, 1, 2)), (119.0, (2, -1, -2)), (120.0, (-2, 0, 0))]
    totals = per_minute("vision", changes)
    # minute 1 (60–119 s): the creation and admission net to +2 in use, 0 pending
    assert totals[("vision", 1, "gpus_in_use")] == 2
    assert totals[("vision", 1, "pending_workloads")] == 0
    assert totals[("vision", 2, "gpus_in_use")] == -2
