"""A reclaimed borrower does not take back the quota its reclaimer is waiting for.

Kueue puts workloads parked as inadmissible back in their queue one requeue batch
(1 s) after a quota release, while the preemptor and the victim are active heads at
once; the preemptor does not borrow, so it is admitted first. Requeuing the parked
workloads at the release itself let an inadmissible higher-priority head hide the
preemptor for a cycle, the victim borrowed the freed quota again and was reclaimed
again, every pod-stop interval (the real-Kueue history: 53 replayed preemptions of
speech where Kueue made 5).
"""

from dataclasses import replace

from apps.whatif.replay.engine import replay
from apps.whatif.replay.trace import PodSetSpec, Window

from .helpers import START_MS, objects, queue, team_workload

S = 1000


def gpus(n: int) -> tuple[PodSetSpec, ...]:
    return (PodSetSpec(count=1, requests={"nvidia.com/gpu": n}, node_selector={"gpu": "h100"}),)


def test_a_reclaimed_borrower_is_preempted_once_and_the_reclaimer_runs():
    # nlp owns 8 GPUs, speech 4. speech's "borrower" (p100, 8 GPUs) borrows 4 of nlp's
    # at t=0. nlp's "huge" (p500, 16 GPUs) can never fit and sits parked at the head of
    # nlp's queue. At t=10 s nlp's "small" (p10, 8 GPUs) reclaims nlp's 4 GPUs:
    # reclaimWithinCohort Any lets it evict the borrower whatever its priority.
    policy = objects([queue("nlp", "8"), queue("speech", "4")])
    borrower = replace(
        team_workload("borrower", "speech", START_MS, gpus(8), work_ms=100 * S), priority=100
    )
    huge = replace(team_workload("huge", "nlp", START_MS, gpus(16), work_ms=10 * S), priority=500)
    small = replace(
        team_workload("small", "nlp", START_MS + 10 * S, gpus(8), work_ms=20 * S), priority=10
    )
    window = Window(START_MS, START_MS + 200 * S)

    result = replay(policy, [borrower, huge, small], window, grid_ms=S)

    # By hand: small evicts the borrower at 10 s; the borrower's pods stop 1 s later
    # (POD_STOP_MS) and small is admitted at 11 s, a 1 s wait. The borrower needs 8 of
    # the 12 GPUs while small holds 8, so it waits: preempted exactly once.
    outcomes = result.outcomes
    assert outcomes["team-nlp/small"].first_admit_ms == START_MS + 11 * S
    assert outcomes["team-speech/borrower"].first_admit_ms == START_MS
    assert outcomes["team-speech/borrower"].preemptions == 1
    assert outcomes["team-nlp/small"].preemptions == 0
    assert "team-nlp/huge" not in outcomes  # never admitted
