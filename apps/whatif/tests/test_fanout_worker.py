"""The replays fan out to a real Celery worker through Redis and are gathered in the database."""

import time

import pytest

from apps.queues.reconcile.desired import load_state
from apps.whatif import services
from apps.whatif.choices import RunStatus
from apps.whatif.models import WhatIfRun
from apps.whatif.policies import policy_objects
from testkit.history_traces import history_trace, record_history


def _wait_for_finish(run_id: int, seconds: float) -> WhatIfRun:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = WhatIfRun.objects.get(pk=run_id)
        if run.is_finished:
            return run
        time.sleep(0.2)
    raise AssertionError(f"what-if {run_id} still {run.status} after {seconds} s")


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_worker_runs_every_replay_and_gathers_them(
    queue, other_queue, admin, replay_worker, settings
):
    settings.QM_KUEUE_FAIR_SHARING = True
    record_history(policy_objects(load_state(), fair_sharing=True), history_trace())
    run = services.request_whatif({"vision": {"fair_weight": "2"}}, actor=admin)
    finished = _wait_for_finish(run.pk, 120)
    assert finished.status == RunStatus.DONE, finished.error
    # current + proposed + two nudges per queue (vision, nlp)
    assert finished.replays_total == finished.replays_done == 6
    assert set(finished.replays.values_list("status", flat=True)) == {"done"}
    assert finished.result["sensitivity"]["checked"] == 4
    assert replay_worker.poll() is None
