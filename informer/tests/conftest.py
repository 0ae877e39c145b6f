"""The informer's tests play Kueue: ``sim`` is the simulated cluster without it."""

import pytest

from testkit import workloads


@pytest.fixture
def sim(sim_without_kueue):
    return sim_without_kueue


@pytest.fixture(autouse=True)
def _stamps_after_now(monkeypatch):
    workloads.restart_clock(monkeypatch)
