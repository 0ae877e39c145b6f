"""A what-if from request to results, over history recorded in the reports tables."""

import pytest

from apps.queues.reconcile.desired import load_state
from apps.whatif import recorded_trace, services
from apps.whatif.choices import RunStatus
from apps.whatif.models import WhatIfRun
from apps.whatif.policies import policy_objects
from testkit.history_traces import history_trace, record_history

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
    trace = {w.name: w for w in recorded_trace.load_trace(*_window(recorded))}
    assert len(trace) == len(recorded)
    first = recorded[0]
    assert trace[first.name].work_ms == first.work_ms
    assert trace[first.name].created_ms == first.created_ms >= run_start
    # The recorded runs come along (contention is read from them).
    runs = trace[first.name].recorded_runs
    assert runs and runs[0][0] == trace[first.name].recorded_admit_ms
    assert runs[-1][1] - runs[-1][0] == first.work_ms


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
    # Each team's noise band is its own unchanged-policy error on this history.
    by_team = run.result["fidelity_by_team"]
    assert set(by_team) == {"vision", "nlp"}
    assert sum(f["compared"] for f in by_team.values()) == fidelity["compared"]
    for team, row in teams.items():
        f = by_team[team]
        assert row["wait_noise_s"] == max(f["p95_wait_error_s"], f["mean_abs_error_s"])


def test_a_weight_only_draft_with_fair_sharing_off_says_it_cannot_matter(
    admin, recorded, eager_celery, django_capture_on_commit_callbacks, client
):
    run = _run(admin, {"vision": {"fair_weight": "3"}}, django_capture_on_commit_callbacks)
    assert run.status == RunStatus.DONE
    assert run.result["weights"]["can_matter"] is False
    assert {t["verdict"] for t in run.result["teams"]} == {"unchanged"}
    client.force_login(admin)
    page = client.get(f"/whatif/{run.pk}/").content.decode()
    assert "fair sharing is off in this" in page
    api = client.get(f"/api/v1/whatif/{run.pk}/").json()
    assert "Kueue ignores weights" in api["result"]["weights"]["why"]


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
