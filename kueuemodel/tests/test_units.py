"""Unit tests of the engine's pure parts: quantities, durations, the quota
tree, queue order and the visibility summary; plus a CRD-schema check."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from kueuemodel.clock import format_timestamp, parse_duration, parse_timestamp
from kueuemodel.quantity import (
    QuantityError,
    format_milli,
    parse_milli,
    parse_units,
    quantity_value,
)
from kueuemodel.quota import (
    QuotaNode,
    add_usage,
    available,
    borrowing_level,
    compute_subtree_quotas,
    potential_available,
    remove_usage,
)
from kueuemodel.reports import pending_workloads
from kueuemodel.scenario import build_simulation, run_scenario
from realcluster.build_info import kueue_crd_dir

CELL = ("default", "cpu")


@pytest.mark.parametrize(
    ("text", "milli"),
    [
        ("1", 1000),
        ("500m", 500),
        ("1.5", 1500),
        ("2k", 2_000_000),
        ("1Ki", 1_024_000),
        ("64Gi", 64 * 2**30 * 1000),
        ("1e3", 1_000_000),
        (".5", 500),
        ("100n", 1),
        (8, 8000),
    ],
)
def test_it_parses_quantities_to_milli_units(text, milli):
    assert parse_milli(text) == milli


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", "5 Gi", "1KB"])
def test_it_rejects_non_quantities(text):
    with pytest.raises(QuantityError):
        parse_milli(text)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("1e9999999", "an exponent from -9 to 18"),
        ("9" * 31, "at most 30 digits"),
        ("1" + "0" * 19, "no larger than 2^63-1"),
        ("1" * 65, "at most 64 characters"),
    ],
)
def test_every_reading_is_bounded_and_names_the_rule(text, rule):
    for reading in (parse_milli, parse_units, quantity_value):
        with pytest.raises(QuantityError, match=re.escape(rule)):
            reading(text)


def test_a_value_finer_than_one_nano_is_rounded_up_but_refused_as_typed_input():
    assert quantity_value("0.0000000001") == Decimal("1E-10")
    assert parse_milli("0.0000000001") == 1  # MilliValue rounds up
    with pytest.raises(QuantityError, match="no finer than 1n"):
        parse_units("0.0000000001")
    assert parse_units("1.5") == Decimal("1.5")


@given(st.integers(min_value=0, max_value=10**15))
def test_formatting_round_trips(milli):
    for resource in ("cpu", "memory"):
        assert parse_milli(format_milli(milli, resource)) == milli


def test_it_formats_memory_with_binary_suffixes():
    assert format_milli(parse_milli("64Gi"), "memory") == "64Gi"
    assert format_milli(parse_milli("1500m"), "cpu") == "1500m"


@pytest.mark.parametrize(
    ("text", "ms"), [("2h", 7_200_000), ("90s", 90_000), ("200ms", 200), ("1h30m", 5_400_000)]
)
def test_it_parses_durations(text, ms):
    assert parse_duration(text) == ms


def test_timestamps_round_trip_in_utc():
    assert format_timestamp(parse_timestamp("2026-03-01T10:00:00Z")) == "2026-03-01T10:00:00Z"


def tree(
    lending: int | None = None, borrowing: int | None = None
) -> tuple[QuotaNode, QuotaNode, QuotaNode]:
    """Cohort with 2 cpu of its own and two queues of nominal 4."""
    root = QuotaNode("cohort", False, nominal={CELL: 2000})
    a = QuotaNode("a", True, parent=root, nominal={CELL: 4000})
    b = QuotaNode("b", True, parent=root, nominal={CELL: 4000})
    if lending is not None:
        b.lending_limit[CELL] = lending
    if borrowing is not None:
        a.borrowing_limit[CELL] = borrowing
    root.children = [a, b]
    compute_subtree_quotas(root)
    return root, a, b


def two_teams(nlp_lends: int | None = None) -> dict[str, QuotaNode]:
    """pool > production > inference (8), pool > research > vision (8), nlp (8);
    inference and vision use their 8, nlp nothing."""
    nodes = {"pool": QuotaNode("pool", False)}
    for cohort, queues in (("production", ["inference"]), ("research", ["vision", "nlp"])):
        nodes[cohort] = QuotaNode(cohort, False, parent=nodes["pool"])
        nodes["pool"].children.append(nodes[cohort])
        for name in queues:
            nodes[name] = QuotaNode(name, True, parent=nodes[cohort], nominal={CELL: 8000})
            nodes[cohort].children.append(nodes[name])
    if nlp_lends is not None:
        nodes["nlp"].lending_limit[CELL] = nlp_lends
    compute_subtree_quotas(nodes["pool"])
    add_usage(nodes["inference"], {CELL: 8000})
    add_usage(nodes["vision"], {CELL: 8000})
    return nodes


def test_borrowing_level_is_the_height_of_the_lowest_cohort_with_room():
    nodes = two_teams()
    assert [nodes[n].height for n in ("pool", "research", "vision")] == [2, 1, 0]
    assert borrowing_level(nodes["nlp"], CELL, 8000) == (0, True)  # its own quota
    assert borrowing_level(nodes["vision"], CELL, 8000) == (1, True)  # research: 8 + 8 <= 16
    assert borrowing_level(nodes["inference"], CELL, 8000) == (2, False)  # pool: 16 + 8 <= 24
    assert borrowing_level(nodes["inference"], CELL, 9000) == (2, False)  # nowhere: the top


def test_borrowing_level_counts_only_what_a_queue_lends():
    # nlp keeps 6 of its 8: research holds 8 + 2, and 16 + 2 in the pool.
    nodes = two_teams(nlp_lends=2000)
    assert borrowing_level(nodes["vision"], CELL, 2000) == (1, True)  # research: 8 + 2 <= 10
    assert borrowing_level(nodes["vision"], CELL, 4000) == (2, False)  # pool: 16 + 4 > 18
    assert borrowing_level(nodes["nlp"], CELL, 6000) == (0, True)


def test_cohort_pool_is_own_nominal_plus_children():
    root, a, _ = tree()
    assert root.subtree_quota[CELL] == 10_000
    assert potential_available(a, CELL) == 10_000


def test_lending_limit_keeps_the_rest_private():
    root, a, b = tree(lending=1000)
    assert root.subtree_quota[CELL] == 7000
    assert potential_available(a, CELL) == 7000
    assert potential_available(b, CELL) == 10_000


def test_borrowing_limit_caps_what_a_queue_can_take():
    _, a, _ = tree(borrowing=1000)
    assert potential_available(a, CELL) == 5000


def test_usage_fills_private_quota_before_the_pool():
    root, a, b = tree(lending=1000)
    add_usage(b, {CELL: 3000})
    assert root.usage.get(CELL, 0) == 0  # 3 of b's 3 private cpus
    add_usage(b, {CELL: 2000})
    assert root.usage[CELL] == 2000
    assert available(a, CELL) == 5000
    remove_usage(b, {CELL: 5000})
    assert root.usage[CELL] == 0 and b.usage[CELL] == 0


def test_versions_change_with_usage():
    root, a, _ = tree()
    before = root.version
    add_usage(a, {CELL: 1000})
    assert root.version == before + 1


VISIBILITY = """
kind: ResourceFlavor
metadata: {name: default}
---
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 0}]}]}]
---
kind: LocalQueue
metadata: {name: a, namespace: ns}
spec: {clusterQueue: cq}
---
kind: LocalQueue
metadata: {name: b, namespace: ns}
spec: {clusterQueue: cq}
"""


def _workload(name: str, queue: str, priority: int, second: int) -> str:
    return f"""---
kind: Workload
metadata: {{name: {name}, namespace: ns, creationTimestamp: "2026-03-01T10:00:{second:02d}Z"}}
spec:
  queueName: {queue}
  priority: {priority}
  podSets: [{{name: main, count: 1, template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}}}}}]
"""


def test_pending_positions_follow_priority_then_age():
    text = (
        VISIBILITY
        + _workload("old-low", "a", 0, 0)
        + _workload("new-high", "b", 10, 5)
        + _workload("mid", "a", 0, 3)
    )
    sim = build_simulation(text)
    sim.run()
    summary = pending_workloads(sim.cluster, "cq")
    assert [i["metadata"]["name"] for i in summary["items"]] == ["new-high", "old-low", "mid"]
    only_a = pending_workloads(sim.cluster, "cq", ("ns", "a"))["items"]
    assert [
        (i["metadata"]["name"], i["positionInClusterQueue"], i["positionInLocalQueue"])
        for i in only_a
    ] == [
        ("old-low", 1, 0),
        ("mid", 2, 1),
    ]


def _schema(kind_file: str) -> dict:
    crd = yaml.safe_load((kueue_crd_dir() / kind_file).read_text())
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1beta2")
    return version["schema"]["openAPIV3Schema"]


def test_written_workload_status_matches_the_crd_schema():
    schema = _schema("kueue.x-k8s.io_workloads.yaml")["properties"]["status"]
    text = (Path(__file__).parent / "scenarios" / "finish_then_next.yaml").read_text()
    for wl in run_scenario(text):
        status = {k: v for k, v in wl["status"].items() if v is not None}
        jsonschema.validate(status, schema)
