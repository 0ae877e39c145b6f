"""Work a preemption throws away, by the checkpoint contract (docs/checkpoints.md)."""

from datetime import UTC, datetime, timedelta

from apps.jobs.status import WorkLost, last_checkpoint, work_lost

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def minutes(n: int) -> datetime:
    return T0 + timedelta(minutes=n)


def test_work_since_the_checkpoint_of_that_run_is_lost():
    assert work_lost(minutes(50), admitted_at=T0, checkpoint=minutes(10)) == WorkLost(
        40 * 60, "checkpoint"
    )


def test_without_a_checkpoint_everything_since_admission_is_lost():
    assert work_lost(minutes(50), admitted_at=minutes(5), checkpoint=None) == WorkLost(
        45 * 60, "admission"
    )


def test_a_checkpoint_of_an_earlier_run_saves_nothing_of_this_one():
    assert work_lost(minutes(50), admitted_at=minutes(30), checkpoint=minutes(20)) == WorkLost(
        1200, "admission"
    )


def test_a_checkpoint_after_the_preemption_is_not_believed():
    assert work_lost(minutes(50), admitted_at=T0, checkpoint=minutes(55)) == WorkLost(
        50 * 60, "admission"
    )


def test_an_unknown_admission_leaves_the_loss_unknown():
    assert work_lost(minutes(50), admitted_at=None, checkpoint=minutes(10)) is None


def test_the_last_checkpoint_is_read_from_the_workload_and_garbage_ignored():
    def workload(value):
        return {"metadata": {"annotations": {"quartermaster.io/last-checkpoint": value}}}

    assert last_checkpoint(workload("2026-03-02T09:10:00Z")) == minutes(10)
    assert last_checkpoint(workload("yesterday")) is None
    assert last_checkpoint(workload("2026-13-45T99:00:00Z")) is None
    assert last_checkpoint({"metadata": {}}) is None
