"""Fixtures private to the reports tests: fresh timestamps, a stored week, and ``sim``
meaning the simulated cluster without Kueue (the recorder tests play Kueue)."""

from __future__ import annotations

import pytest

from apps.reports import services
from testkit import history, promdata


@pytest.fixture(autouse=True)
def _stamps_after_now(monkeypatch):
    from testkit import workloads

    workloads.restart_clock(monkeypatch)


@pytest.fixture
def sim(sim_without_kueue):
    return sim_without_kueue


@pytest.fixture
def stored(settings, team, other_team, queue, other_queue):
    """vision: 2 GPUs for 10 h (waited 10 min); nlp: 1 GPU for 4 h (waited 1 h)."""
    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""
    monday, h = promdata.MONDAY, 3600.0
    history.record(
        history.life("train-a", "team-vision", created=monday + 9 * h + 50 * 60,
                     admitted=monday + 10 * h, ended=monday + 20 * h, gpus=2),
        history.life("train-b", "team-nlp", created=monday + h, admitted=monday + 2 * h,
                     ended=monday + 6 * h, queue="nlp"),
    )  # fmt: skip
    return services.build_weekly_report(promdata.WEEK)
