"""A job arriving at an instant meets the cluster as that instant's own events left it.

The live controller steps the engine to a job's arrival time, so the completions,
releases and requeues of that instant are scheduled first, and only then creates
the job's Workload and schedules again. The replay used to put the arrival in the
same scheduling pass; in the generated busy week a notebook arriving in the second a
victim came back took the quota the victim got in the live week.
"""

from dataclasses import replace

from apps.whatif.replay.engine import replay
from apps.whatif.replay.trace import PodSetSpec, Window

from .helpers import START_MS, objects, queue, team_workload

S = 1000
NO_PREEMPTION = {"within_cluster_queue": "Never", "reclaim_within_cohort": "Never"}


def test_a_parked_job_requeued_at_an_arrival_is_admitted_before_the_newcomer():
    nlp = queue("nlp", "8")
    nlp["preemption"].update(NO_PREEMPTION)
    gpus = (PodSetSpec(count=1, requests={"nvidia.com/gpu": 8}, node_selector={"gpu": "h100"}),)
    first = team_workload("first", "nlp", START_MS, gpus, work_ms=10 * S)
    parked = team_workload("parked", "nlp", START_MS + 1 * S, gpus, work_ms=20 * S)
    urgent = replace(
        team_workload("urgent", "nlp", START_MS + 11 * S, gpus, work_ms=5 * S), priority=100
    )

    result = replay(
        objects([nlp]), [first, parked, urgent], Window(START_MS, START_MS + 100 * S), grid_ms=S
    )

    # By hand: "first" holds all 8 GPUs until 10 s; "parked" (queued at 1 s) comes back
    # one requeue batch later, at 11 s, and is admitted in that instant's own pass.
    # "urgent" arrives at 11 s after that pass: full, parked, and may not preempt; the
    # release at 31 s brings it back one batch later, at 32 s.
    outcomes = result.outcomes
    assert outcomes["team-nlp/parked"].first_admit_ms == START_MS + 11 * S
    assert outcomes["team-nlp/urgent"].first_admit_ms == START_MS + 32 * S
