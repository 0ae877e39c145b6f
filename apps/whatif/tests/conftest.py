"""Fixtures private to the what-if tests (the worker and the recorded traces are the test
kit's); `history` is two finished weeks of stored reports for the suggestion tests."""

from __future__ import annotations

import pytest
from celery import current_app

from apps.queues.reconcile.run import reconcile
from apps.whatif.tests.suggestion_history import ran, store_two_finished_weeks
from testkit.factories import make_queue, quota


@pytest.fixture
def eager_celery():
    """Tasks sent with .delay() run inline (tests without a worker only)."""
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = False


@pytest.fixture
def history(cluster, queue, catalog, other_team, lead, other_lead):
    # nlp lends up to 10 of its 16 h100: lowering its nominal to 5 breaks
    # lendingLimit ≤ nominalQuota, which Kueue's webhook refuses.
    make_queue(
        catalog, other_team, cohort="research", quotas=[quota("h100", "16", lending_limit="10")]
    )
    reconcile(trigger="manual")
    # Idle: vision 2000/2688 ≈ 74 %, nlp 2400/2688 ≈ 89 %, both weeks (≥ 50 %).
    weeks = store_two_finished_weeks({"vision": 2000.0, "nlp": 2400.0})
    # Peaks: vision 2 + 1 GPUs at once = 3; nlp 5.
    ran("vision", 2, weeks[0], "v1")
    ran("vision", 1, weeks[0], "v2")
    ran("vision", 2, weeks[1], "v3")
    ran("nlp", 5, weeks[1], "n1")
    return weeks
