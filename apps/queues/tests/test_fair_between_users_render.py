"""A queue fair between users: its ClusterQueue's admissionScope and one LocalQueue per
member, rendered as plain dicts (expected names worked out by hand from the rule in
``apps.queues.user_queues``: ``<queue>.<folded user, ≤20>-<sha256(queue NUL user)[:8]>``)."""

from __future__ import annotations

import copy

from apps.queues import kueue
from apps.queues.names import dns_subdomain_error, label_value_error
from apps.queues.reconcile import plan as p
from apps.queues.tests.crd_schema import schema_errors
from apps.queues.tests.test_kueue_render import _q, _queue
from apps.queues.user_queues import user_label_value, user_local_queue_name

V = "v1beta2"
TEAMS = [
    kueue.TeamSpec("vision", "", ("team-vision", "team-vision-dev"), ("alice", "bob")),
    kueue.TeamSpec("nlp", "", ("team-nlp",), ("carol",)),
]
FAIR = _queue("vision", "vision", [_q("h100", "nvidia.com/gpu", "8")], fair_between_users=True)


def _local_queues(objects: list[dict]) -> list[tuple[str, str, str]]:
    return [
        (o["metadata"]["namespace"], o["metadata"]["name"], o["spec"]["clusterQueue"])
        for o in objects
        if o["kind"] == "LocalQueue"
    ]


def test_the_cluster_queue_asks_kueue_for_usage_based_admission_fair_sharing():
    (cq, *_) = kueue.render_queue(FAIR, TEAMS)
    assert cq["spec"]["admissionScope"] == {"admissionMode": "UsageBasedAdmissionFairSharing"}
    assert schema_errors(cq) == []
    assert schema_errors(kueue.to_api_version(cq, "v1beta1")) == []


def test_a_queue_not_fair_between_users_has_no_admission_scope_and_one_local_queue_per_namespace():
    plain = {**FAIR, "fair_between_users": False}
    (cq, *local) = kueue.render_queue(plain, TEAMS)
    assert "admissionScope" not in cq["spec"]
    assert _local_queues(local) == [
        ("team-vision", "vision", "vision"),
        ("team-vision-dev", "vision", "vision"),
    ]


def test_each_member_gets_a_local_queue_of_their_own_in_each_team_namespace():
    objects = kueue.render_queue(FAIR, TEAMS)
    # 2 namespaces × (the team's LocalQueue + alice's + bob's) = 6; carol is in nlp.
    assert _local_queues(objects) == [
        ("team-vision", "vision", "vision"),
        ("team-vision", "vision.alice-efc4af5a", "vision"),
        ("team-vision", "vision.bob-1946b045", "vision"),
        ("team-vision-dev", "vision", "vision"),
        ("team-vision-dev", "vision.alice-efc4af5a", "vision"),
        ("team-vision-dev", "vision.bob-1946b045", "vision"),
    ]
    alice = objects[2]
    assert alice["metadata"]["labels"] == {
        kueue.MANAGED_BY: kueue.MANAGER,
        kueue.TEAM_LABEL: "vision",
        kueue.USER_LABEL: "alice",
    }
    assert alice["spec"] == {"clusterQueue": "vision", "stopPolicy": "None"}
    assert all(schema_errors(o) == [] for o in objects)


def test_names_are_dns_safe_and_two_users_folding_alike_stay_apart():
    # Both fold to "alice-example-org"; the hash of the exact username tells them apart.
    assert user_local_queue_name("vision", "Alice@Example.org") == (
        "vision.alice-example-org-ec8bbb70"
    )
    assert user_local_queue_name("vision", "alice-example-org") == (
        "vision.alice-example-org-8809ccbc"
    )
    # "@" is not allowed in a label value: folded form plus sha256("Alice@Example.org")[:8].
    assert user_label_value("Alice@Example.org") == "alice-example-org-cfd44c4f"
    assert label_value_error(user_label_value("Alice@Example.org")) is None


def test_a_long_queue_and_username_are_cut_to_63_characters_keeping_the_hash():
    name = user_local_queue_name("x" * 63, "a-very-long-username-indeed-yes")
    # user part: "a-very-long-username" (20) + "-" + "21f06fc6" (8) = 29;
    # queue part: 63 - 1 (the dot) - 29 = 33 x's.
    assert name == "x" * 33 + ".a-very-long-username-21f06fc6"
    assert len(name) == 63 and dns_subdomain_error(name) is None
    assert label_value_error(name) is None  # jobs carry it in kueue.x-k8s.io/queue-name


def test_a_username_with_nothing_foldable_still_gets_a_valid_name():
    name = user_local_queue_name("vision", "@@@")
    assert name.startswith("vision.user-") and dns_subdomain_error(name) is None


def _observed(objects: list[dict]) -> dict:
    observed = {}
    for obj in copy.deepcopy(objects):
        obj["metadata"]["resourceVersion"] = "3"
        observed[kueue.object_key(obj)] = obj
    return observed


def test_a_member_who_left_loses_their_local_queue_only_once_it_is_idle():
    before = kueue.render_queue(FAIR, TEAMS)
    without_bob = [kueue.TeamSpec("vision", "", ("team-vision",), ("alice",)), TEAMS[1]]
    observed = _observed([o for o in before if o["metadata"].get("namespace") != "team-vision-dev"])
    after = kueue.render_queue(FAIR, without_bob)
    bob = ("LocalQueue", "team-vision", "vision.bob-1946b045")

    busy = p.plan(after, observed, version=V, busy={bob: 1})
    assert [(a.verb, a.key) for a in busy if a.verb != p.UNCHANGED] == [(p.HOLD, bob)]

    idle = p.plan(after, observed, version=V, busy={bob: 0})
    assert [(a.verb, a.key) for a in idle if a.verb != p.UNCHANGED] == [(p.DELETE, bob)]


def test_turning_it_off_removes_the_admission_scope_and_prunes_the_members_queues():
    observed = _observed(kueue.render_queue(FAIR, TEAMS))
    off = kueue.render_queue({**FAIR, "fair_between_users": False}, TEAMS)
    actions = [a for a in p.plan(off, observed, version=V) if a.verb != p.UNCHANGED]
    (update,) = [a for a in actions if a.verb == p.UPDATE]
    assert update.key == ("ClusterQueue", "", "vision")
    assert update.patch["spec"] == {"admissionScope": None}
    deleted = sorted(a.key[1:] for a in actions if a.verb == p.DELETE)
    assert deleted == [
        ("team-vision", "vision.alice-efc4af5a"),
        ("team-vision", "vision.bob-1946b045"),
        ("team-vision-dev", "vision.alice-efc4af5a"),
        ("team-vision-dev", "vision.bob-1946b045"),
    ]
