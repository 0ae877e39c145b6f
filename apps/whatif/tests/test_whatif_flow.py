"""A what-if from request to results, over history recorded in the reports tables."""

import pytest

from apps.queues.reconcile.desired import load_state
from apps.whatif import history, services
from apps.whatif.choices import RunStatus
from apps.whatif.models import WhatIfRun
from apps.whatif.policies import policy_objects
from apps.whatif.tests.conftest import history_trace, record_history

pytestmark = pytest.mark.django_db


@pytest.fixture
def recorded(queue, other_queue):
    trace = history_trace()
    record_history(policy_objects(load_state(), fair_sharing=False), trace)
    return trace


def _run(admin, draft, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        run = services.request_whatif(draft, actor=admin)
    return WhatIfRun.objects.get(pk=run.pk)


def test_the_adapter_reads_back_the_recorded_history(recorded):
    run_start = min(w.created_ms for w in recorded)
    trace = {w.name: w for w in history.load_trace(*_window(recorded))}
    assert len(trace) == len(recorded)
    first = recorded[0]
    assert trace[first.name].work_ms == first.work_ms
    assert trace[first.name].created_ms == first.created_ms >= run_start


def test_unchanged_policy_replay_reproduces_recorded_waits(
    admin, recorded, eager_celery, django_capture_on_commit_callbacks
):
    run = _run(admin, {"vision": {}}, django_capture_on_commit_callbacks)
    assert run.status == RunStatus.DONE
    fidelity = run.result["fidelity"]
    assert fidelity["compared"] > 50
    # Replays round arrivals and run times to a 30 s grid; the error stays within it.
    assert fidelity["mean_abs_error_s"] <= 60
    teams = {t["team"]: t for t in run.result["teams"]}
    assert teams["vision"]["verdict"] == "unchanged"


def test_doubling_a_quota_shows_that_team_gaining(
    admin, recorded, eager_celery, django_capture_on_commit_callbacks
):
    draft = {"nlp": {"quotas": [{"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "32"}]}}
    run = _run(admin, draft, django_capture_on_commit_callbacks)
    nlp = {t["team"]: t for t in run.result["teams"]}["nlp"]
    assert nlp["proposed"]["p95_wait_s"] <= nlp["current"]["p95_wait_s"]
    assert nlp["proposed"]["entitled_share"] > nlp["current"]["entitled_share"]
    assert run.progress_percent == 100


def _window(trace):
    from datetime import UTC, datetime

    start = min(w.created_ms for w in trace)
    return datetime.fromtimestamp(start / 1000 - 1, tz=UTC), datetime.now(tz=UTC)
