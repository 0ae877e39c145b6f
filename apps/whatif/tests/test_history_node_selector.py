"""A recorded job with no node selector may use any flavor in the replay, not only the one it got.

The generated busy week had one: an nlp finetune with no selector, admitted on a100,
was preempted; back in its queue it reclaimed h100 from a borrowing vision job, and
the live week went on from there. Pinned to a100, the replay could not reclaim, and
every later decision of the cohort drifted (docs/benchmarks.md, "A generated busy week").
"""

from datetime import UTC, datetime, timedelta

from apps.queues import kueue
from apps.reports.models import WorkloadRecord, WorkloadTransition
from apps.whatif.policies import policy_objects
from apps.whatif.recorded_trace import FlavorInfo, trace_workload
from apps.whatif.replay.engine import replay
from apps.whatif.replay.trace import PodSetSpec, Window
from informer.workload import Transition

from .helpers import START_MS, queue, team_workload

S = 1000
T0 = datetime.fromtimestamp(START_MS / 1000, tz=UTC)
FLAVORS = {
    "h100": FlavorInfo("nvidia.com/gpu", {"gpu": "h100"}),
    "a100": FlavorInfo("nvidia.com/gpu", {"gpu": "a100"}),
}


def _policy() -> list[dict]:
    # One queue, 8 GPUs on each flavor, h100 tried first.
    nlp = queue("nlp", "8")
    nlp["quotas"].append({**nlp["quotas"][0], "flavor": "a100"})
    state = kueue.PolicyState(
        flavors=[{"name": name, "node_labels": info.node_labels} for name, info in FLAVORS.items()],
        cohorts=[{"name": "research", "parent": None, "fair_weight": "1"}],
        tiers=[],
        teams=[kueue.TeamSpec("nlp", "", ("team-nlp",))],
        queues=[nlp],
    )
    return policy_objects(state, fair_sharing=True)  # as in the busy week


def _recorded_on_a100(node_selector: dict | None):
    """Created at 10 s, ran on a100 from 100 s to 150 s (50 s of work)."""
    record = WorkloadRecord(
        uid="free",
        namespace="team-nlp",
        name="free",
        team_slug="nlp",
        local_queue="nlp",
        gpus=8,
        pod_count=1,
        gpus_by_flavor={"a100": 8},
        node_selector=node_selector,
        created_at=T0 + timedelta(seconds=10),
        first_admitted_at=T0 + timedelta(seconds=100),
    )
    steps = [
        WorkloadTransition(type=kind, at=T0 + timedelta(seconds=s))
        for kind, s in ((Transition.ADMITTED, 100), (Transition.FINISHED, 150))
    ]
    return trace_workload(record, steps, FLAVORS)


def _on(flavor: str) -> tuple[PodSetSpec, ...]:
    return (PodSetSpec(count=1, requests={"nvidia.com/gpu": 8}, node_selector={"gpu": flavor}),)


def _first_admission(workload) -> int:
    busy = [
        team_workload("a100-hog", "nlp", START_MS, _on("a100"), work_ms=100 * S),
        team_workload("h100-short", "nlp", START_MS, _on("h100"), work_ms=30 * S),
    ]
    result = replay(_policy(), [*busy, workload], Window(START_MS, START_MS + 300 * S), grid_ms=S)
    return result.outcomes["team-nlp/free"].first_admit_ms


def test_a_job_recorded_without_a_selector_takes_the_first_flavor_that_frees():
    workload = _recorded_on_a100(node_selector={})
    assert workload.pod_sets[0].node_selector == {}
    # By hand: both flavors are full when it arrives at 10 s, so it is parked. h100
    # frees at 30 s; parked workloads come back one requeue batch (1 s) later: 31 s.
    assert _first_admission(workload) == START_MS + 31 * S


def test_a_job_whose_selector_was_not_recorded_stays_on_the_flavor_it_got():
    workload = _recorded_on_a100(node_selector=None)
    assert workload.pod_sets[0].node_selector == {"gpu": "a100"}
    # By hand: a100 frees at 100 s, plus the 1 s requeue batch.
    assert _first_admission(workload) == START_MS + 101 * S


def test_a_recorded_selector_is_kept_as_the_job_wrote_it():
    workload = _recorded_on_a100(node_selector={"gpu": "a100", "zone": "b"})
    assert workload.pod_sets[0].node_selector == {"gpu": "a100", "zone": "b"}
