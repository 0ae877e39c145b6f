"""Rendering locks: every manifest matches its golden file and the Kueue CRD schema."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.queues import kueue
from apps.queues.tests.crd_schema import schema_errors

GOLDEN = Path(__file__).parent / "golden"


def _preemption(**overrides) -> dict:
    base = {
        "reclaim_within_cohort": "Never",
        "within_cluster_queue": "Never",
        "borrow_within_cohort": "Never",
        "borrow_max_priority_threshold": None,
    }
    return {**base, **overrides}


def _queue(name, team, quotas, **fields) -> dict:
    base = {
        "name": name,
        "team": team,
        "cohort": None,
        "fair_weight": "1",
        "queueing_strategy": "BestEffortFIFO",
        "stop_policy": "None",
        "preemption": _preemption(),
        "quotas": quotas,
        "version": 1,
    }
    return {**base, **fields}


def _q(flavor, resource, nominal, borrowing_limit=None, lending_limit=None) -> dict:
    return {
        "flavor": flavor,
        "resource": resource,
        "nominal": nominal,
        "borrowing_limit": borrowing_limit,
        "lending_limit": lending_limit,
    }


SAMPLE = kueue.PolicyState(
    flavors=[
        {
            "name": "h100",
            "node_labels": {"gpu.nvidia.com/class": "h100"},
            "node_taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
            "tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
            ],
        },
        {"name": "a100-mig", "node_labels": {}, "node_taints": [], "tolerations": []},
        {
            "name": "b200-racks",
            "node_labels": {"gpu.nvidia.com/class": "b200"},
            "node_taints": [],
            "tolerations": [],
            "topology_levels": [
                {"name": "block", "node_label": "example.com/block"},
                {"name": "rack", "node_label": "example.com/rack"},
                {"name": "host", "node_label": "kubernetes.io/hostname"},
            ],
        },
    ],
    cohorts=[
        {"name": "org", "parent": None, "fair_weight": "1"},
        {"name": "research", "parent": "org", "fair_weight": "2"},
    ],
    tiers=[
        {"name": "p0-critical", "value": 1000, "description": "Deadlines."},
        {"name": "p3-best-effort", "value": 0, "description": ""},
    ],
    teams=[
        kueue.TeamSpec("vision", "cc-1042", ("team-vision", "team-vision-dev")),
        kueue.TeamSpec("nlp", "", ("team-nlp",)),
    ],
    queues=[
        _queue(
            "vision",
            "vision",
            [
                _q("h100", "nvidia.com/gpu", "16", borrowing_limit="8", lending_limit="4"),
                _q("a100-mig", "nvidia.com/mig-1g.10gb", "28"),
                _q("a100-mig", "nvidia.com/gpu", "2"),
            ],
            cohort="research",
            fair_weight="1.5",
            preemption=_preemption(
                reclaim_within_cohort="Any",
                borrow_within_cohort="LowerPriority",
                borrow_max_priority_threshold=100,
            ),
        ),
        _queue("nlp", "nlp", [], queueing_strategy="StrictFIFO", stop_policy="Hold"),
        _queue("shared-burst", None, [_q("h100", "nvidia.com/gpu", "4")], cohort="research"),
    ],
    checkpoint_volume=kueue.CheckpointVolume("cephfs-rwx", "500Gi"),
)


def _by_kind(objects: list[dict]) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = {}
    for obj in objects:
        grouped.setdefault(obj["kind"], []).append(obj)
    return grouped


def _check_golden(name: str, objects: list[dict], update: bool) -> None:
    path = GOLDEN / f"{name}.yaml"
    text = yaml.safe_dump_all(objects, sort_keys=False, default_flow_style=False)
    if update:
        path.write_text(text)
    assert text == path.read_text(), f"{path.name} changed; rerun with --update-goldens if intended"


@pytest.mark.parametrize("kind", kueue.KINDS)
def test_it_renders_each_kind_as_in_its_golden_file(kind, request):
    objects = _by_kind(kueue.render_all(SAMPLE))[kind]
    _check_golden(
        kind.lower(), objects, request.config.getoption("--update-goldens", default=False)
    )


def test_it_renders_v1beta1_cluster_queues_with_the_old_cohort_field(request):
    objects = [
        kueue.to_api_version(o, "v1beta1")
        for o in _by_kind(kueue.render_all(SAMPLE))["ClusterQueue"]
    ]
    _check_golden(
        "clusterqueue-v1beta1", objects, request.config.getoption("--update-goldens", default=False)
    )
    assert objects[0]["spec"]["cohort"] == "research"
    assert "cohortName" not in objects[0]["spec"]


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.yaml")), ids=lambda p: p.name)
def test_every_golden_validates_against_the_kueue_crd(path):
    for obj in yaml.safe_load_all(path.read_text()):
        if obj["apiVersion"].startswith(f"{kueue.GROUP}/"):
            assert schema_errors(obj) == [], obj["metadata"]["name"]


def test_every_flavor_lists_every_covered_resource_in_order():
    (group,) = kueue.resource_groups(SAMPLE.queues[0]["quotas"])
    assert [f["name"] for f in group["flavors"]] == ["h100", "a100-mig"]
    for flavor in group["flavors"]:
        assert [r["name"] for r in flavor["resources"]] == group["coveredResources"]
    h100 = {r["name"]: r["nominalQuota"] for r in group["flavors"][0]["resources"]}
    assert h100 == {"nvidia.com/gpu": "16", "nvidia.com/mig-1g.10gb": "0"}


def test_a_shared_queue_gets_a_local_queue_in_every_team_namespace():
    objects = kueue.render_queue(SAMPLE.queues[2], SAMPLE.teams)
    local = [o["metadata"]["namespace"] for o in objects if o["kind"] == "LocalQueue"]
    assert local == ["team-nlp", "team-vision", "team-vision-dev"]
    selector = objects[0]["spec"]["namespaceSelector"]
    assert selector == {"matchExpressions": [{"key": kueue.TEAM_LABEL, "operator": "Exists"}]}


def test_every_object_carries_the_managed_by_label():
    assert all(kueue.is_managed(obj) for obj in kueue.render_all(SAMPLE))


# --- randomised valid policies -------------------------------------------------

NAMES = st.from_regex(r"[a-z]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
RESOURCES = st.sampled_from(["nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "cpu", "memory"])
AMOUNTS = st.integers(min_value=0, max_value=512).map(str)


@st.composite
def queues(draw, flavors: list[str], teams: list[str], cohorts: list[str]) -> dict:
    cohort = draw(st.sampled_from([None, *cohorts]))
    pairs = draw(st.lists(st.tuples(st.sampled_from(flavors), RESOURCES), unique=True, max_size=6))
    quotas = []
    for flavor, resource in pairs:
        nominal = draw(st.integers(min_value=0, max_value=256))
        borrow = draw(st.one_of(st.none(), AMOUNTS)) if cohort else None
        lend = draw(st.one_of(st.none(), st.integers(0, nominal).map(str))) if cohort else None
        quotas.append(_q(flavor, resource, str(nominal), borrow, lend))
    strategy = draw(st.sampled_from(["BestEffortFIFO", "StrictFIFO"]))
    reclaim = draw(st.sampled_from(["Never", "LowerPriority", "Any"]))
    borrow_policy = (
        "Never" if reclaim == "Never" else draw(st.sampled_from(["Never", "LowerPriority"]))
    )
    threshold = draw(st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)))
    return _queue(
        draw(NAMES),
        draw(st.sampled_from([None, *teams])),
        quotas,
        cohort=cohort,
        fair_weight=draw(st.sampled_from(["0", "1", "2.5", "500m"])),
        queueing_strategy=strategy,
        stop_policy=draw(st.sampled_from(["None", "Hold", "HoldAndDrain"])),
        preemption=_preemption(
            reclaim_within_cohort=reclaim,
            within_cluster_queue=draw(
                st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])
            ),
            borrow_within_cohort=borrow_policy,
            borrow_max_priority_threshold=threshold,
        ),
    )


@st.composite
def policies(draw) -> kueue.PolicyState:
    flavors = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    cohorts = draw(st.lists(NAMES, max_size=3, unique=True))
    slugs = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
    teams = [kueue.TeamSpec(s, draw(st.sampled_from(["", "cc-1"])), (f"team-{s}",)) for s in slugs]
    return kueue.PolicyState(
        flavors=[{"name": f, "node_labels": {"pool": f}} for f in flavors],
        cohorts=[{"name": c, "parent": None, "fair_weight": "1"} for c in cohorts],
        tiers=[{"name": "tier", "value": draw(st.integers(-(2**31), 2**31 - 1))}],
        teams=teams,
        queues=draw(st.lists(queues(flavors, slugs, cohorts), max_size=4)),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policies())
def test_random_valid_policies_render_schema_valid_manifests(state):
    for obj in kueue.render_all(state):
        if obj["apiVersion"].startswith(f"{kueue.GROUP}/"):
            assert schema_errors(obj) == []
        for version in ("v1beta1",):
            converted = kueue.to_api_version(obj, version)
            if converted["kind"] != "Namespace":
                assert schema_errors(converted) == []
