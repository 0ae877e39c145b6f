"""Quantities, envelope checks and snapshot diffs are pure; test them directly."""

from decimal import Decimal

import pytest

from apps.queues.envelope import EnvelopeSpec, envelope_breaches
from apps.queues.quantity import QuantityError, format_units, parse_units
from apps.queues.snapshots import apply_changes, diff


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("8", Decimal(8)),
        ("500m", Decimal("0.5")),
        ("64Gi", Decimal(64 * 2**30)),
        ("1e3", Decimal(1000)),
        ("1.5k", Decimal(1500)),
        (".5", Decimal("0.5")),
        (12, Decimal(12)),
        ("2E2", Decimal(200)),
    ],
)
def test_quantities_parse_exactly(text, value):
    assert parse_units(text) == value


@pytest.mark.parametrize("text", ["", "eight", "8 GPUs", "1Gb", "--1", "1.2.3", None])
def test_bad_quantities_name_the_rule(text):
    with pytest.raises(QuantityError, match="Kubernetes quantity"):
        parse_units(text)


def test_quantities_format_for_people():
    assert [format_units(Decimal(x)) for x in ("64", "0.5", "1.250")] == ["64", "0.5", "1.25"]


def snap(weight="1", quotas=()):
    return {
        "name": "q",
        "team": "t",
        "cohort": "c",
        "fair_weight": weight,
        "queueing_strategy": "BestEffortFIFO",
        "stop_policy": "None",
        "preemption": {},
        "quotas": list(quotas),
        "version": 1,
    }


def q(flavor, nominal, borrowing=None):
    return {
        "flavor": flavor,
        "resource": "gpu",
        "nominal": nominal,
        "borrowing_limit": borrowing,
        "lending_limit": None,
    }


def test_diff_and_apply_round_trip():
    before, after = snap(quotas=[q("a", "1"), q("b", "2")]), snap(weight="2", quotas=[q("b", "3")])
    changes = diff(before, after)
    assert {c["field"] for c in changes} == {
        "fair_weight",
        "flavor_order",
        "quotas[a/gpu].nominal",
        "quotas[b/gpu].nominal",
    }
    rebuilt = apply_changes(before, changes)
    assert diff(rebuilt, after) == []


def test_envelope_allows_decreases_and_limits_increases():
    envelope = EnvelopeSpec(limits={("a", "gpu"): (Decimal(10), Decimal(4))})
    current = snap(quotas=[q("a", "8", "2")])
    assert envelope_breaches(current, snap(quotas=[q("a", "10", "4")]), envelope) == []
    assert envelope_breaches(current, snap(quotas=[q("a", "1", "0")]), None) == []
    assert len(envelope_breaches(current, snap(quotas=[q("a", "11", "5")]), envelope)) == 2
    assert "no increase" in envelope_breaches(current, snap(quotas=[q("a", "9", "2")]), None)[0]
