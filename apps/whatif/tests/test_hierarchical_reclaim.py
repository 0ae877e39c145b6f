"""Hierarchical reclaim: a queue at its nominal quota may still evict, borrowing, a
workload of another cohort subtree that borrows, when its own cohort has room.

Kueue (classic preemption, hierarchical cohorts) gives the preemptor an advantage
over queues outside the lowest cohort subtree that can hold its request, whatever
their priority under ``reclaimWithinCohort: Any``. The real-Kueue history showed it:
vision, at its nominal h100 quota, reclaimed a p0 inference batch job that borrowed
research's h100 four times; the replay never did.
"""

from dataclasses import replace

from apps.queues import kueue
from apps.whatif.policies import policy_objects
from apps.whatif.replay.engine import replay
from apps.whatif.replay.trace import PodSetSpec, Window

from .helpers import START_MS, queue, team_workload

S = 1000


def gpus(n: int) -> tuple[PodSetSpec, ...]:
    return (PodSetSpec(count=1, requests={"nvidia.com/gpu": n}, node_selector={"gpu": "h100"}),)


def policy() -> list[dict]:
    queues = [
        queue("vision", "8", cohort="research"),
        queue("nlp", "8", cohort="research"),
        queue("inference", "4", cohort="production"),
    ]
    state = kueue.PolicyState(
        flavors=[{"name": "h100", "node_labels": {"gpu": "h100"}}],
        cohorts=[
            {"name": "pool", "parent": None, "fair_weight": "1"},
            {"name": "research", "parent": "pool", "fair_weight": "1"},
            {"name": "production", "parent": "pool", "fair_weight": "1"},
        ],
        tiers=[],
        teams=[kueue.TeamSpec(q["team"], "", (f"team-{q['team']}",)) for q in queues],
        queues=queues,
    )
    return policy_objects(state, fair_sharing=False)


def test_a_queue_at_nominal_reclaims_from_another_subtree_when_its_cohort_has_room():
    # 20 h100 GPUs: research 8 + 8, production 4. At t=0 inference's p1000 "batch"
    # (8) borrows 4 of research's, vision's "busy" (8) fills vision's nominal quota;
    # 16 used, nlp idle. At t=10 s vision's p100 "late" (8) arrives.
    batch = replace(
        team_workload("batch", "inference", START_MS, gpus(8), work_ms=50 * S), priority=1000
    )
    busy = replace(
        team_workload("busy", "vision", START_MS, gpus(8), work_ms=100 * S), priority=100
    )
    late = replace(
        team_workload("late", "vision", START_MS + 10 * S, gpus(8), work_ms=30 * S), priority=100
    )

    result = replay(policy(), [batch, busy, late], Window(START_MS, START_MS + 300 * S), grid_ms=S)

    # By hand: vision is at its nominal 8, so "late" must borrow; research holds
    # 8 + 8 = 16 and uses 8, so the research subtree has room for it, while production
    # (nominal 4) uses 8: batch is reclaimable whatever its priority. Only 4 GPUs are
    # free, so late evicts batch at 10 s and is admitted when batch's pods stop, 11 s.
    # busy (same queue, same priority) is never a victim under LowerPriority.
    outcomes = result.outcomes
    assert outcomes["team-vision/late"].first_admit_ms == START_MS + 11 * S
    assert outcomes["team-inference/batch"].preemptions == 1
    assert outcomes["team-vision/busy"].preemptions == 0
    assert outcomes["team-vision/late"].preemptions == 0


def test_a_queue_at_nominal_does_not_reclaim_when_its_cohort_is_full_too():
    # The same, but nlp's "full" (8) fills research: the research subtree has no room
    # left, so "late" has no advantage over batch and waits for a release: batch
    # finishes at 50 s, and late, parked, is back one requeue batch (1 s) later.
    batch = replace(
        team_workload("batch", "inference", START_MS, gpus(8), work_ms=50 * S), priority=1000
    )
    busy = replace(
        team_workload("busy", "vision", START_MS, gpus(8), work_ms=100 * S), priority=100
    )
    full = replace(team_workload("full", "nlp", START_MS, gpus(4), work_ms=100 * S), priority=100)
    late = replace(
        team_workload("late", "vision", START_MS + 10 * S, gpus(8), work_ms=30 * S), priority=100
    )

    result = replay(
        policy(), [batch, busy, full, late], Window(START_MS, START_MS + 300 * S), grid_ms=S
    )

    outcomes = result.outcomes
    assert outcomes["team-inference/batch"].preemptions == 0
    assert outcomes["team-vision/late"].first_admit_ms == START_MS + 51 * S
