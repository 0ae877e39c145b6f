"""Predicted start times, stored and scored against the admissions recorded later."""

import copy

import pytest

from apps.queues.reconcile.desired import load_state
from apps.whatif import recorded_trace, start_predictions
from apps.whatif.policies import policy_objects
from apps.whatif.replay import start_estimates
from apps.whatif.replay.manifests import arrivals
from kueuemodel import Simulation, with_run_time
from testkit.clients import api_as
from testkit.history_traces import history_trace, record_history

pytestmark = pytest.mark.django_db
HOUR_MS = 3_600_000


def _cluster_at(objects, trace, at_ms):
    """Every unfinished Workload as the cluster shows it at ``at_ms``."""
    sim = Simulation(objects, start_ms=trace[0].created_ms, record_events=False)
    sim.add_arrivals([(t, w) for t, w in arrivals(trace) if t <= at_ms])
    sim.run(until_ms=at_ms)
    return [
        copy.deepcopy(w)
        for w in sim.workloads()
        if not start_estimates.is_reserved(w) or not _finished(w)
    ]


def _finished(obj):
    return any(
        c["type"] == "Finished" and c["status"] == "True" for c in obj["status"]["conditions"]
    )


def test_eta_accuracy_is_measured_on_seeded_history(queue, other_queue):
    objects = policy_objects(load_state(), fair_sharing=False)
    trace = history_trace(per_day=150)
    record_history(objects, trace)
    runs = start_estimates.expected_runs(trace)
    now_ms = trace[0].created_ms + 14 * HOUR_MS
    cluster = [w for w in _cluster_at(objects, trace, now_ms) if not _finished(w)]
    queued = [
        with_run_time(w, start_estimates.expected_run(runs, w["spec"]["queueName"], 2), now_ms)
        for w in cluster
    ]
    starts = start_estimates.predict_starts(objects, queued, now_ms=now_ms, horizon_ms=48 * HOUR_MS)
    assert starts, "the seeded day leaves work queued at the prediction time"
    by_key = {f"{w['metadata']['namespace']}/{w['metadata']['name']}": w for w in cluster}
    for key, start in starts.items():
        start_predictions.record_prediction(by_key[key], _at(start))
    assert start_predictions.score_eta_predictions() == len(
        [s for s in starts.values() if s is not None]
    )
    accuracy = start_predictions.eta_accuracy()
    assert accuracy["scored"] > 0
    # Median run times instead of the real ones: close, not exact.
    assert 0 <= accuracy["median_abs_error_s"] < 6 * 3600


def test_scoring_twice_scores_nothing_new(queue, other_queue):
    assert start_predictions.score_eta_predictions() == 0
    assert recorded_trace.first_admissions(set()) == {}


def test_eta_of_another_teams_workload_is_forbidden(queue, other_queue, scientist):
    response = api_as(scientist).get(
        "/api/v1/whatif/eta/", {"namespace": "team-nlp", "workload": "x"}
    )
    assert response.status_code == 403


def _at(ms):
    from datetime import UTC, datetime

    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)
