"""Retrying a sweep's failed trials: each runs again as a new job (run 2, 3…), before the
trials never released and within the same limits; the sweep opens again; a cancelled
sweep, a sweep with nothing failed, and someone else's sweep are refused with nothing
written."""

import pytest

from apps.jobs.choices import JobState, SweepState
from apps.jobs.models import BatchJob, Sweep
from apps.jobs.services import JobRequest, Principal
from apps.jobs.services.sweeps import (
    SweepRequest,
    cancel_sweep,
    release_trials,
    retry_failed_trials,
    set_sweep_limit,
    submit_sweep,
)
from apps.queues import services
from apps.queues.models import AuditEntry
from core.errors import NotAllowed, RuleBroken
from core.roles import TeamRole
from testkit.clients import api_as
from testkit.factories import UserFactory

pytestmark = pytest.mark.django_db

JOB = JobRequest(template="pytorch-train", flavor="h100", sim_duration_seconds=5)


def _sweep(user, seeds, limit):
    request = SweepRequest(job=JOB, grid={"seed": seeds}, concurrency_limit=limit)
    return submit_sweep(user, request, actor=Principal(user)).record


def _end(sweep, index, state, attempt=1):
    """What the status sync records when a trial's Job ends, then its release pass."""
    BatchJob.objects.filter(sweep=sweep, trial_index=index, attempt=attempt).update(state=state)
    release_trials(sweep.pk)


def _runs(sweep):
    return sorted(
        BatchJob.objects.filter(sweep=sweep).values_list("trial_index", "attempt", "state")
    )


def test_failed_trials_run_again_first_and_the_sweep_opens_again(queue, template, scientist):
    sweep = _sweep(scientist, [1, 2, 3], limit=2)  # trials 0 and 1 released
    _end(sweep, 0, JobState.FAILED)  # room for trial 2
    _end(sweep, 1, JobState.SUCCEEDED)
    _end(sweep, 2, JobState.FAILED)
    sweep.refresh_from_db()
    assert sweep.state == SweepState.DONE  # every trial ended: 1 succeeded, 2 failed
    assert sweep.progress().failed == 2

    assert retry_failed_trials(sweep, actor=Principal(scientist)) == 2
    sweep.refresh_from_db()
    assert sweep.state == SweepState.OPEN and sweep.ended_at is None
    # Limit 2, nothing held: both failed trials run again as their run 2.
    assert _runs(sweep) == [
        (0, 1, JobState.FAILED),
        (0, 2, JobState.SUBMITTED),
        (1, 1, JobState.SUCCEEDED),
        (2, 1, JobState.FAILED),
        (2, 2, JobState.SUBMITTED),
    ]
    rerun = BatchJob.objects.get(sweep=sweep, trial_index=2, attempt=2)
    assert rerun.display_name.endswith("#3 (run 2)")
    assert rerun.command[-1] == "--seed=3"
    progress = sweep.progress()  # each trial by its latest run
    assert (progress.done, progress.waiting, progress.failed) == (1, 2, 0)
    assert AuditEntry.objects.filter(reason="failed trials retried").count() == 1

    _end(sweep, 0, JobState.SUCCEEDED, attempt=2)
    _end(sweep, 2, JobState.SUCCEEDED, attempt=2)
    sweep.refresh_from_db()
    assert sweep.state == SweepState.DONE and sweep.progress().done == 3


def test_retries_wait_for_room_under_the_limit(queue, template, scientist):
    sweep = _sweep(scientist, [1, 2, 3, 4], limit=1)
    _end(sweep, 0, JobState.FAILED)  # trial 1 released
    _end(sweep, 1, JobState.FAILED)  # trial 2 released
    assert retry_failed_trials(sweep, actor=Principal(scientist)) == 2
    sweep.refresh_from_db()
    # Trial 2 (index 2) holds the one place: the two retries and trial 4 wait.
    assert sweep.retry_queue == [0, 1]
    rows = {row["number"]: row for row in sweep.trial_rows()}
    assert (rows[1]["runs"], rows[1]["retrying"]) == (1, True)
    # Waiting: trials 1 and 2 queued again, trial 3 submitted, trial 4 never released.
    assert sweep.progress().waiting == 4

    _end(sweep, 2, JobState.SUCCEEDED)  # room for one: the oldest retry goes first
    sweep.refresh_from_db()
    assert sweep.retry_queue == [1]
    assert BatchJob.objects.filter(sweep=sweep, attempt=2).get().trial_index == 0
    assert not BatchJob.objects.filter(sweep=sweep, trial_index=3).exists()


def test_what_is_refused_writes_nothing(queue, template, scientist, team, admin):
    colleague = UserFactory(username="colleague")  # same team, not the owner, not a lead
    services.add_membership(team=team, user=colleague, role=TeamRole.SCIENTIST, actor=admin)
    sweep = _sweep(scientist, [1, 2], limit=2)
    with pytest.raises(RuleBroken) as nothing_failed:
        retry_failed_trials(sweep, actor=Principal(scientist))
    assert nothing_failed.value.field == "trials"

    _end(sweep, 0, JobState.FAILED)
    with pytest.raises(NotAllowed):
        retry_failed_trials(sweep, actor=Principal(colleague))

    cancel_sweep(sweep, actor=Principal(scientist))
    with pytest.raises(RuleBroken) as cancelled:
        retry_failed_trials(sweep, actor=Principal(scientist))
    assert cancelled.value.field == "state"
    assert "submit the sweep again" in cancelled.value.detail
    sweep.refresh_from_db()
    assert sweep.state == SweepState.CANCELLED and sweep.retry_queue == []
    assert BatchJob.objects.filter(sweep=sweep, attempt=2).count() == 0


def test_the_api_retries_and_shows_each_trials_runs(queue, template, scientist, lead):
    sweep = _sweep(scientist, [1, 2], limit=2)
    _end(sweep, 1, JobState.FAILED)
    response = api_as(lead).post(f"/api/v1/sweeps/{sweep.pk}/retry/", format="json")  # a lead may
    assert response.status_code == 200, response.json()
    trials = response.json()["trial_list"]
    assert [(t["state"], t["runs"], t["retrying"]) for t in trials] == [
        ("submitted", 1, False),
        ("submitted", 2, False),  # run 2, released at once: trial 1 holds 1 of 2 places
    ]
    again = api_as(scientist).post(f"/api/v1/sweeps/{sweep.pk}/retry/", format="json")
    assert again.status_code == 400 and again.json()["field"] == "trials"
    assert Sweep.objects.get().jobs.count() == 3


def test_the_list_reads_retried_trials_in_a_fixed_number_of_queries(
    queue, template, scientist, lead, team, django_assert_max_num_queries
):
    set_sweep_limit(team, actor=lead, per_user=6)  # room for 3 sweeps × 2 trials
    for _ in range(3):
        sweep = _sweep(scientist, [1, 2], limit=2)
        _end(sweep, 0, JobState.FAILED)
        retry_failed_trials(sweep, actor=Principal(scientist))
    with django_assert_max_num_queries(6):
        response = api_as(scientist).get("/api/v1/sweeps/")
    assert [s["progress"]["waiting"] for s in response.json()["results"]] == [2, 2, 2]
