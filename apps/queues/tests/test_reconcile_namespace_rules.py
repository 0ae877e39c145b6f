"""The pure plan never writes in a protected namespace, nor in one that is not ours."""

from __future__ import annotations

from apps.queues import kueue
from apps.queues.reconcile import plan as p
from apps.queues.tests.test_kueue_render import SAMPLE
from apps.queues.tests.test_reconcile_plan import _as_observed

V = "v1beta2"
SYSTEM = p.NamespaceRules(protected=("kube-*", "default"))


def _state_with(namespaces: tuple[str, ...]) -> kueue.PolicyState:
    teams = [*SAMPLE.teams, kueue.TeamSpec("legacy", "", namespaces)]
    queues = [*SAMPLE.queues, {**SAMPLE.queues[0], "name": "legacy", "team": "legacy"}]
    return kueue.PolicyState(SAMPLE.flavors, SAMPLE.cohorts, SAMPLE.tiers, teams, queues)


def _in(namespace: str, actions: list[p.Action]) -> list[p.Action]:
    return [a for a in actions if p.namespace_of(a.key) == namespace]


def test_a_team_given_kube_system_gets_no_label_and_no_local_queue_there():
    desired = kueue.render_all(_state_with(("kube-system",)))
    observed = {("Namespace", "", "kube-system"): _ns("kube-system")}
    there = _in("kube-system", p.plan(desired, observed, version=V, namespaces=SYSTEM))
    assert {(a.kind, a.verb) for a in there} == {
        ("Namespace", p.BLOCKED),
        ("LocalQueue", p.BLOCKED),
    }
    assert not any(a.writes for a in there)
    assert "protected system namespace" in there[0].message


def test_a_protected_namespace_is_refused_even_when_it_does_not_exist_yet():
    desired = kueue.render_all(_state_with(("default",)))
    there = _in("default", p.plan(desired, {}, version=V, namespaces=SYSTEM))
    assert there and {a.verb for a in there} == {p.BLOCKED}


def test_our_leftovers_in_a_protected_namespace_are_reported_not_touched():
    # What the old reconciler left behind in kube-system: its label and a LocalQueue.
    left = kueue.render_all(_state_with(("kube-system",)))
    observed = _as_observed([o for o in left if p.namespace_of(kueue.object_key(o))])
    there = _in(
        "kube-system", p.plan(kueue.render_all(SAMPLE), observed, version=V, namespaces=SYSTEM)
    )
    assert there and {a.verb for a in there} == {p.BLOCKED}


def test_an_existing_unlabelled_namespace_is_not_ours_until_adopted():
    desired = kueue.render_all(SAMPLE)
    observed = {("Namespace", "", "team-nlp"): _ns("team-nlp", {"owner": "ops"})}
    there = _in("team-nlp", p.plan(desired, observed, version=V))
    assert {(a.kind, a.verb) for a in there} == {
        ("Namespace", p.BLOCKED),
        ("PersistentVolumeClaim", p.BLOCKED),  # the team's checkpoint volume
        ("LocalQueue", p.BLOCKED),
    }
    assert "exists, not ours; adopt?" in there[0].message


def test_once_adopted_it_is_labelled_and_gets_its_local_queues():
    desired = kueue.render_all(SAMPLE)
    observed = {("Namespace", "", "team-nlp"): _ns("team-nlp", {"owner": "ops"})}
    rules = p.NamespaceRules(adopted=frozenset({"team-nlp"}))
    there = _in("team-nlp", p.plan(desired, observed, version=V, namespaces=rules))
    assert {a.verb for a in there} == {p.UPDATE, p.CREATE}
    assert all(a.writes for a in there)


def test_a_namespace_read_only_for_the_decision_is_never_pruned():
    desired = [o for o in kueue.render_all(SAMPLE) if o["kind"] == "LocalQueue"]
    ours = {("Namespace", "", "team-nlp"): _ns("team-nlp", {kueue.MANAGED_BY: kueue.MANAGER})}
    actions = p.plan(desired, {}, version=V, read_only=ours)
    assert {a.verb for a in actions} == {p.CREATE}
    assert "Namespace" not in {a.kind for a in actions}


def _ns(name: str, labels: dict | None = None) -> dict:
    meta = {"name": name, "labels": labels or {}, "resourceVersion": "1"}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}
