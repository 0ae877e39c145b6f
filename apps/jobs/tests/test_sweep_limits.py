"""The per-user sweep limit: a lead sets it within the admin's envelope; a sweep asks for at
most that many trials at once, and releases no more than it."""

import pytest

from apps.jobs.choices import JobState
from apps.jobs.models import BatchJob, Sweep, SweepLimit
from apps.jobs.services import JobRequest, Principal
from apps.jobs.services.sweeps import SweepRequest, set_sweep_limit, submit_sweep
from core.errors import NotAllowed, RuleBroken

pytestmark = pytest.mark.django_db

JOB = JobRequest(template="pytorch-train", flavor="h100", sim_duration_seconds=5)


def test_a_lead_sets_the_limit_within_the_envelope(team, lead, admin):
    assert set_sweep_limit(team, actor=lead, per_user=5).per_user == 5
    with pytest.raises(RuleBroken) as caught:
        set_sweep_limit(team, actor=lead, per_user=9)  # the default envelope is 8
    assert caught.value.field == "per_user"
    assert "1–8 (the team's envelope, max_per_user), e.g. 2" in caught.value.detail
    assert SweepLimit.objects.get(team=team).per_user == 5  # nothing written


def test_only_an_admin_moves_the_envelope_and_lowering_it_lowers_the_limit(team, lead, admin):
    set_sweep_limit(team, actor=lead, per_user=6)
    with pytest.raises(NotAllowed) as caught:
        set_sweep_limit(team, actor=lead, max_per_user=20)
    assert caught.value.field == "max_per_user"
    row = set_sweep_limit(team, actor=admin, max_per_user=3)
    assert (row.per_user, row.max_per_user) == (3, 3)


def test_a_scientist_may_not_set_the_limit(team, scientist):
    with pytest.raises(NotAllowed):
        set_sweep_limit(team, actor=scientist, per_user=1)


def test_a_sweep_above_the_team_limit_is_refused_and_nothing_written(
    queue, template, scientist, lead, team
):
    set_sweep_limit(team, actor=lead, per_user=3)
    request = SweepRequest(job=JOB, grid={"seed": [1, 2, 3, 4]}, concurrency_limit=4)
    with pytest.raises(RuleBroken) as caught:
        submit_sweep(scientist, request, actor=Principal(scientist))
    assert caught.value.field == "concurrency_limit"
    assert "1–3 (team vision's limit per user)" in caught.value.detail
    assert not Sweep.objects.exists() and not BatchJob.objects.exists()


def test_a_sweep_releases_its_limit_at_the_lowest_tier_by_default(queue, template, scientist):
    request = SweepRequest(job=JOB, grid={"seed": [1, 2, 3, 4, 5]})
    sweep = submit_sweep(scientist, request, actor=Principal(scientist)).record
    assert sweep.concurrency_limit == 2  # the default per-user limit
    trials = BatchJob.objects.filter(sweep=sweep).order_by("trial_index")
    # 5 trials, limit 2: trials 1 and 2 released, 3–5 wait in the portal
    assert [(t.trial_index, t.state) for t in trials] == [
        (0, JobState.SUBMITTED),
        (1, JobState.SUBMITTED),
    ]
    assert trials[0].command == ["python", "train.py", "--seed=1"]
    # tiers p3-low (10) < p2-standard (100) < p1-high < interactive: the lowest is the default
    assert {t.priority_tier.name for t in trials} == {"p3-low"}
