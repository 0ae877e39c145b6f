"""The Kueue Configuration document: ``fairSharing`` turns fair sharing on."""

from __future__ import annotations

import pytest

from kueuemodel.simulation import Simulation
from kueuemodel.state import DEFAULT_STRATEGIES, parse_config

KUEUE_DEFAULT = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")


def configuration(**fields) -> dict:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", **fields}


@pytest.mark.parametrize(
    "block", [{}, {"preemptionStrategies": []}, {"preemptionStrategies": None}]
)
def test_an_empty_fair_sharing_block_enables_the_default_strategies(block):
    config = parse_config(configuration(fairSharing=block))
    assert config is not None
    assert config.strategies == KUEUE_DEFAULT == DEFAULT_STRATEGIES


def test_a_simulation_accepts_fair_sharing_braces():
    sim = Simulation([configuration(fairSharing={})])
    assert sim.cluster.fair_sharing.strategies == KUEUE_DEFAULT


def test_explicit_strategies_are_kept():
    config = parse_config(
        configuration(fairSharing={"preemptionStrategies": ["LessThanInitialShare"]})
    )
    assert config.strategies == ("LessThanInitialShare",)


def test_without_the_block_fair_sharing_is_off():
    assert parse_config(configuration()) is None
