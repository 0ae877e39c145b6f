"""A what-if replays cohort tree by cohort tree, and only once a tree the draft leaves alone."""

from apps.whatif.replay.engine import replay
from apps.whatif.replay.partition import cohort_groups, group_objects, group_trace
from apps.whatif.replay.split import combine, plan_replays, replay_part
from apps.whatif.replay.synthetic import Load, synthetic_trace
from apps.whatif.tests.helpers import START_MS, objects, queue, window

TEAMS = {"vision": "research", "nlp": "research", "speech": "prod", "audio": None}


def _queues(**nominal: str) -> list[dict]:
    return [queue(t, nominal.get(t, "8"), cohort=cohort) for t, cohort in TEAMS.items()]


def _trace():
    loads = []
    for team in TEAMS:
        ns = f"team-{team}"
        loads.append(Load(team, team, ns, per_day=50, gpus=(1, 2, 4), minutes=(30, 150)))
        loads.append(Load(team, team, ns, per_day=8, gpus=(8,), minutes=(60, 200), priority=500))
    return synthetic_trace(loads, start_ms=START_MS, days=2, seed=11)


def _outcomes(result) -> dict:
    return {k: (o.first_admit_ms, o.preemptions, o.lost_gpu_ms) for k, o in result.outcomes.items()}


def test_it_groups_queues_by_cohort_tree():
    assert cohort_groups([objects(_queues())]) == [("audio",), ("nlp", "vision"), ("speech",)]


def test_a_draft_that_moves_a_queue_keeps_both_trees_together():
    moved = [
        queue("speech", "8", cohort="research") if q["name"] == "speech" else q for q in _queues()
    ]
    assert cohort_groups([objects(_queues()), objects(moved)]) == [
        ("audio",),
        ("nlp", "speech", "vision"),
    ]


def test_tree_by_tree_gives_every_workload_the_whole_replays_outcome():
    trace, policy = _trace(), objects(_queues())
    whole = replay(policy, trace, window())
    plan = plan_replays({"current": policy})
    parts = {key: replay_part(objs, trace, window()) for key, objs in plan.parts.items()}
    split = combine(plan, "current", parts, window())
    assert sum(o.preemptions for o in whole.outcomes.values()) > 0
    assert _outcomes(split) == _outcomes(whole)
    assert split.gpu_ms_by_team == whole.gpu_ms_by_team
    # Borrowing happens inside a tree, so each tree's meter sees all of it.
    assert split.by_flavor == whole.by_flavor
    assert any(f[2] for flavors in whole.by_flavor.values() for f in flavors.values())


def test_it_replays_only_the_trees_a_draft_changes():
    plan = plan_replays({"current": objects(_queues()), "proposed": objects(_queues(nlp="16"))})
    assert plan.uses["current"] == ["current@0", "current@1", "current@2"]
    assert plan.uses["proposed"] == ["current@0", "proposed@1", "current@2"]
    assert sorted(plan.parts) == ["current@0", "current@1", "current@2", "proposed@1"]


def test_each_tree_replays_only_its_own_workloads():
    policy, trace = objects(_queues()), _trace()
    research = group_trace(group_objects(policy, ("nlp", "vision")), trace)
    assert research and {wl.team for wl in research} == {"nlp", "vision"}
