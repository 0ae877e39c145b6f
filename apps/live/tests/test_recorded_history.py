"""Preemptions older than the cluster's Events come from the recorder's history, and a
preemptor that is gone is still named."""

import copy

import pytest

from apps.live import story
from apps.live.recorded_preemptions import recorded_preemptions, recorded_workloads
from apps.reports import services
from testkit.history import iso, life

pytestmark = pytest.mark.django_db
T0 = 1_780_000_000.0  # any fixed time
MESSAGE = (
    "Preempted to accommodate a workload (UID: uid-boss, JobUID: j) due to prioritization "
    "in the ClusterQueue; preemptor path: /vision; preemptee path: /vision"
)


def preempted_life() -> list[tuple[str, dict]]:
    events = life("victim", "team-vision", created=T0, admitted=T0 + 60, ended=None)
    obj = copy.deepcopy(events[-1][1])
    obj["status"]["conditions"] += [
        {"type": t, "status": "True", "reason": r, "message": MESSAGE,
         "lastTransitionTime": iso(T0 + 600)}
        for t, r in (("Evicted", "Preempted"), ("Preempted", "InClusterQueue"))
    ]  # fmt: skip
    return [*events, ("MODIFIED", obj)]


@pytest.fixture
def recorded():
    victim_events = preempted_life()
    boss_events = life("boss", "team-vision", created=T0 + 500, admitted=T0 + 601, ended=None)
    services.record_workload_events(victim_events)
    services.record_workload_events(boss_events)
    return victim_events[0][1], boss_events[-1][1]


def test_the_history_names_both_sides(recorded):
    of, by = recorded_preemptions("uid-victim")
    assert [e["message"] for e in of] == [MESSAGE] and by == []
    of, by = recorded_preemptions("uid-boss")
    assert of == []
    assert [(e["involvedObject"]["name"], e["lastTimestamp"][:19]) for e in by] == [
        ("victim", iso(T0 + 600)[:19])
    ]


def test_a_gone_victim_and_a_gone_preemptor_are_still_in_the_story(recorded):
    victim, boss = recorded
    _, by = recorded_preemptions("uid-boss")
    page = story.workload_page(boss, events=[], workloads=[boss], local_queues=[],
                               preempted_events=by, namespaces={"team-vision"})  # fmt: skip
    assert [(v["name"], v["exists"]) for v in page["preempted"]] == [("victim", False)]

    of, _ = recorded_preemptions("uid-victim")
    page = story.workload_page(
        victim, events=of, workloads=[victim], local_queues=[], preempted_events=[],
        namespaces={"team-vision"}, known=recorded_workloads({"uid-boss"}),
    )  # fmt: skip
    (by_boss,) = page["preempted_by"]
    assert by_boss["preemptor"]["name"] == "boss" and by_boss["at"].startswith(iso(T0 + 600)[:19])
