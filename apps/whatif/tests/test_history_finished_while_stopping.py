"""A job evicted in the second its pods completed is finished, not unfinished work.

The real Kueue's history had one: a 64-GPU pretrain job preempted at 967 s whose Job
succeeded at 968 s, before any new admission. Read as "last run ended in an eviction",
its work was unknown and the replay let it run to the window's end, holding 64 GPUs,
so three later 64-GPU jobs were never admitted in the replay.
"""

from datetime import UTC, datetime, timedelta

from apps.reports.models import WorkloadRecord, WorkloadTransition
from apps.whatif.recorded_trace import trace_workload
from informer.workload import Transition

T0 = datetime(2026, 12, 2, 14, 0, tzinfo=UTC)


def _record() -> WorkloadRecord:
    return WorkloadRecord(
        uid="u-1",
        namespace="team-nlp",
        name="pretrain",
        team_slug="nlp",
        local_queue="nlp",
        priority=500,
        gpus=64,
        pod_count=8,
        gpus_by_flavor={"h100": 64},
        created_at=T0,
        first_admitted_at=T0 + timedelta(seconds=10),
    )


def _steps(*pairs: tuple[str, int]) -> list[WorkloadTransition]:
    return [WorkloadTransition(type=t, at=T0 + timedelta(seconds=s)) for t, s in pairs]


def test_a_job_that_finished_while_being_evicted_needs_its_last_run_only():
    steps = _steps(
        (Transition.ADMITTED, 10),
        (Transition.EVICTED, 40),
        (Transition.ADMITTED, 100),
        (Transition.EVICTED, 333),
        (Transition.FINISHED, 334),
    )
    workload = trace_workload(_record(), steps, flavors={})
    # By hand: the last run went from 100 s to the eviction at 333 s, when the job had
    # done its work (it finished before running again); no checkpoints saved earlier work.
    assert workload.work_ms == 233_000
    assert workload.recorded_runs[-1] == (
        round((T0 + timedelta(seconds=100)).timestamp() * 1000),
        round((T0 + timedelta(seconds=333)).timestamp() * 1000),
    )


def test_a_job_evicted_and_not_finished_still_has_unknown_work():
    steps = _steps((Transition.ADMITTED, 10), (Transition.EVICTED, 40))
    assert trace_workload(_record(), steps, flavors={}).work_ms is None


def test_a_job_readmitted_after_its_eviction_keeps_its_last_run():
    steps = _steps(
        (Transition.ADMITTED, 10),
        (Transition.EVICTED, 40),
        (Transition.ADMITTED, 100),
        (Transition.FINISHED, 150),
    )
    assert trace_workload(_record(), steps, flavors={}).work_ms == 50_000
