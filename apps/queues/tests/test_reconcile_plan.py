"""The pure diff between desired manifests and observed objects."""

from __future__ import annotations

import copy

from apps.queues import kueue
from apps.queues.reconcile import plan as p
from apps.queues.tests.test_kueue_render import SAMPLE

V = "v1beta2"


def _desired() -> list[dict]:
    return kueue.render_all(SAMPLE)


def _as_observed(objects: list[dict]) -> dict:
    """What a server would return: our fields plus defaults, status and metadata."""
    observed = {}
    for obj in copy.deepcopy(objects):
        obj["metadata"].update(resourceVersion="7", uid="u", generation=1)
        if obj["kind"] == "ClusterQueue":
            obj["spec"]["flavorFungibility"] = {"whenCanBorrow": "MayStopSearch"}
            obj["status"] = {"admittedWorkloads": 0}
        observed[kueue.object_key(obj)] = obj
    return observed


def _only(actions, verb):
    return [a for a in actions if a.verb == verb]


def test_it_creates_everything_on_an_empty_cluster_in_dependency_order():
    actions = p.plan(_desired(), {}, version=V)
    assert {a.verb for a in actions} == {p.CREATE}
    kinds = [a.kind for a in actions]
    assert kinds == sorted(kinds, key=kueue.KINDS.index)


def test_it_ignores_server_defaults_status_and_metadata():
    actions = p.plan(_desired(), _as_observed(_desired()), version=V)
    assert {a.verb for a in actions} == {p.UNCHANGED}
    assert not any(a.writes for a in actions)


def test_it_patches_only_the_fields_that_differ_conditionally_on_the_version_read():
    observed = _as_observed(_desired())
    observed[("ClusterQueue", "", "vision")]["spec"]["fairSharing"] = {"weight": "9"}
    (update,) = _only(p.plan(_desired(), observed, version=V), p.UPDATE)
    assert [c.field for c in update.changes] == ["spec.fairSharing"]
    assert update.patch == {
        "metadata": {"resourceVersion": "7"},
        "spec": {"fairSharing": {"weight": "1.5"}},
    }


def test_it_removes_an_owned_field_that_is_no_longer_rendered():
    observed = _as_observed(_desired())
    observed[("ClusterQueue", "", "nlp")]["spec"]["cohortName"] = "rogue"
    (update,) = _only(p.plan(_desired(), observed, version=V), p.UPDATE)
    assert update.patch["spec"] == {"cohortName": None}


def test_a_difference_from_what_we_applied_is_drift():
    observed = _as_observed(_desired())
    key = ("ClusterQueue", "", "vision")
    applied = {key: p.applied_fields(observed[key], V)}
    observed[key]["spec"]["fairSharing"] = {"weight": "9"}
    (update,) = _only(p.plan(_desired(), observed, version=V, applied=applied), p.UPDATE)
    assert [c.as_dict() for c in update.drift] == [
        {"field": "spec.fairSharing", "cluster": {"weight": "9"}, "desired": {"weight": "1.5"}}
    ]


def test_a_policy_change_is_not_drift():
    observed = _as_observed(_desired())
    key = ("ClusterQueue", "", "vision")
    applied = {key: p.applied_fields(observed[key], V)}
    desired = _desired()
    wanted = [o for o in desired if kueue.object_key(o) == key][0]
    wanted["spec"]["fairSharing"] = {"weight": "3"}
    updates = _only(p.plan(desired, observed, version=V, applied=applied), p.UPDATE)
    assert [u.key for u in updates if u.drift] == []


def test_it_prunes_only_labelled_objects():
    observed = _as_observed(_desired())
    ours = kueue.render_cluster_queue(SAMPLE.queues[1] | {"name": "retired"})
    theirs = copy.deepcopy(ours) | {"metadata": {"name": "handmade", "resourceVersion": "1"}}
    observed.update(_as_observed([ours, theirs]))
    actions = p.plan(_desired(), observed, version=V)
    assert [a.name for a in _only(actions, p.DELETE)] == ["retired"]


def test_a_busy_queue_is_held_before_it_is_deleted():
    observed = _as_observed(_desired())
    retired = kueue.render_cluster_queue(SAMPLE.queues[0] | {"name": "retired"})
    observed.update(_as_observed([retired]))
    key = ("ClusterQueue", "", "retired")
    (hold,) = _only(p.plan(_desired(), observed, version=V, busy={key: 2}), p.HOLD)
    assert hold.patch["spec"] == {"stopPolicy": "Hold"}
    observed[key]["spec"]["stopPolicy"] = "Hold"
    (waiting,) = _only(p.plan(_desired(), observed, version=V, busy={key: 2}), p.HOLD)
    assert not waiting.writes
    (delete,) = _only(p.plan(_desired(), observed, version=V, busy={key: 0}), p.DELETE)
    assert delete.key == key


def test_an_unlabelled_object_with_our_name_is_blocked_not_touched():
    observed = _as_observed(_desired())
    del observed[("Cohort", "", "org")]["metadata"]["labels"]
    (blocked,) = _only(p.plan(_desired(), observed, version=V), p.BLOCKED)
    assert blocked.name == "org" and not blocked.writes


def test_a_namespace_no_longer_wanted_loses_our_labels_but_is_never_deleted():
    observed = _as_observed(_desired())
    gone = kueue.render_namespace(kueue.TeamSpec("old", "cc-9", ()), "team-old")
    observed.update(_as_observed([gone]))
    actions = p.plan(_desired(), observed, version=V)
    assert _only(actions, p.DELETE) == []
    (release,) = [a for a in _only(actions, p.UPDATE) if a.name == "team-old"]
    assert release.patch["metadata"]["labels"] == {
        kueue.MANAGED_BY: None,
        kueue.TEAM_LABEL: None,
        kueue.COST_CENTER_LABEL: None,
    }


def test_an_adopted_unlabelled_team_namespace_is_labelled():
    observed = _as_observed(_desired())
    observed[("Namespace", "", "team-nlp")]["metadata"]["labels"] = {"owner": "ops"}
    rules = p.NamespaceRules(adopted=frozenset({"team-nlp"}))
    (update,) = _only(p.plan(_desired(), observed, version=V, namespaces=rules), p.UPDATE)
    assert update.patch["metadata"]["labels"] == {
        kueue.MANAGED_BY: kueue.MANAGER,
        kueue.TEAM_LABEL: "nlp",
    }


def test_v1beta1_objects_compare_under_their_own_field_names():
    desired = [kueue.to_api_version(o, "v1beta1") for o in _desired()]
    actions = p.plan(desired, _as_observed(desired), version="v1beta1")
    assert {a.verb for a in actions} == {p.UNCHANGED}
    observed = _as_observed(desired)
    observed[("ClusterQueue", "", "vision")]["spec"]["cohort"] = "other"
    (update,) = _only(p.plan(desired, observed, version="v1beta1"), p.UPDATE)
    assert update.patch["spec"] == {"cohort": "research"}
