import pytest

from apps.reports.tests import workloads
from apps.reports.tests.simrecorder import sim  # noqa: F401 (a fixture)


@pytest.fixture(autouse=True)
def _stamps_after_now(monkeypatch):
    workloads.restart_clock(monkeypatch)
