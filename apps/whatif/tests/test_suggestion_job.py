"""The weekly look for suggestions: what it stores, that it stores it once, and that a
suggestion may be applied only after the cluster accepted it and its what-if finished."""

import pytest
from django.db import connection
from django.test import Client

from apps.queues.models import AuditEntry, Queue
from apps.reports.compute.weeks import week_bounds
from apps.reports.models import WeeklyReport
from apps.whatif.choices import RunStatus, SuggestionState
from apps.whatif.models import PolicySuggestion, WhatIfRun
from apps.whatif.tasks import look_for_suggestions_task
from apps.whatif.tests.suggestion_history import crowded_out, starved, waited
from portal.schedule import beat_schedule
from testkit.factories import quota, set_policy

pytestmark = pytest.mark.django_db
URL = "/whatif/suggestions/"


def page(user) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(URL)
    assert response.status_code == 200
    return response.content.decode()


def test_it_stores_each_draft_with_its_evidence_and_dry_run(history):
    assert look_for_suggestions_task() == 1  # vision offered; nlp refused by the webhook
    stored = {s.queue.name: s for s in PolicySuggestion.objects.all()}
    vision, nlp = stored["vision"], stored["nlp"]
    assert (vision.kind, vision.flavor, vision.state) == ("lower-idle-quota", "h100", "offered")
    assert vision.weeks == [history[1], history[0]]  # newest first
    assert vision.evidence["facts"] == {
        "team": "vision", "peak_gpus": 3, "current_nominal": 16.0, "proposed_nominal": 3,
    }  # fmt: skip
    assert nlp.state == SuggestionState.REFUSED
    assert "lendingLimit" in nlp.refusal or "nominalQuota" in nlp.refusal
    # The portal started the what-if of the offered one only, as itself.
    assert nlp.whatif_run is None
    assert vision.whatif_run.requested_by is None
    assert vision.whatif_run.reason == f"policy suggestion #{vision.pk}"


def test_looking_twice_over_the_same_weeks_stores_nothing_new(history):
    look_for_suggestions_task()
    look_for_suggestions_task()
    assert PolicySuggestion.objects.count() == 2
    assert WhatIfRun.objects.count() == 1


def test_a_suggestion_the_rules_no_longer_propose_is_superseded(history, lead):
    look_for_suggestions_task()
    # The older week turns out busy (idle 100 of 2688 = 4 % < 50 %): no rule fires.
    older = WeeklyReport.objects.get(week=history[0])
    for team in older.data["cost"]["teams"]:
        team["idle_by_flavor"][0]["idle_gpu_hours"] = 100.0
    older.save()
    assert look_for_suggestions_task() == 0
    states = set(PolicySuggestion.objects.values_list("state", flat=True))
    assert states == {SuggestionState.SUPERSEDED}
    assert "No suggestions" in page(lead)


def test_a_leads_look_leaves_other_teams_suggestions_alone(history, lead):
    look_for_suggestions_task()  # vision offered, nlp refused
    for report in WeeklyReport.objects.filter(week=history[0]):
        for team in report.data["cost"]["teams"]:
            team["idle_by_flavor"][0]["idle_gpu_hours"] = 100.0  # 4 % idle: no rule fires
        report.save()
    client = Client()
    client.force_login(lead)
    assert client.post(URL + "refresh/").status_code == 302
    states = dict(PolicySuggestion.objects.values_list("queue__name", "state"))
    assert states == {"vision": SuggestionState.SUPERSEDED, "nlp": SuggestionState.REFUSED}


def test_a_dismissed_suggestion_stays_dismissed(history):
    look_for_suggestions_task()
    PolicySuggestion.objects.filter(queue__name="vision").update(state=SuggestionState.DISMISSED)
    look_for_suggestions_task()
    assert PolicySuggestion.objects.get(queue__name="vision").state == SuggestionState.DISMISSED


def test_apply_is_offered_only_once_its_whatif_has_finished(history, lead):
    look_for_suggestions_task()
    # Outside on_commit the what-if's replays are never sent: it stays queued.
    run = PolicySuggestion.objects.get(queue__name="vision").whatif_run
    assert run.status == RunStatus.QUEUED
    html = page(lead)
    assert "Lower vision on h100" in html and "is replaying" in html
    assert "Apply this draft" not in html and f"/whatif/{run.pk}/apply/" not in html


def test_its_whatif_figures_are_shown_before_apply(
    history, lead, other_lead, eager_celery, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        look_for_suggestions_task()
    run = PolicySuggestion.objects.get(queue__name="vision").whatif_run
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    html = page(lead)
    assert "What-if over these weeks" in html and "Cost of the replayed period" in html
    teams = {t["team"]: t for t in run.result["teams"]}
    assert f"<td>{teams['vision']['verdict_text']}</td>" in html
    assert f'action="/whatif/{run.pk}/apply/"' in html and "Apply this draft" in html
    # The portal's run opens for the queue's lead, not for another team's.
    for user, status in ((lead, 200), (other_lead, 404)):
        client = Client()
        client.force_login(user)
        assert client.get(f"/whatif/{run.pk}/").status_code == status


def test_the_refused_suggestion_is_never_applicable(history, admin):
    look_for_suggestions_task()
    nlp = PolicySuggestion.objects.get(queue__name="nlp")
    assert not nlp.can_apply
    refused = page(admin).split("Refused by the cluster")[1]
    assert "Lower nlp on h100" in refused and "Apply this draft" not in refused


def test_the_weekly_look_runs_an_hour_after_the_weekly_report():
    entries = beat_schedule()
    report, look = entries["build-weekly-report"], entries["look-for-suggestions"]
    assert look["task"] == "apps.whatif.tasks.look_for_suggestions_task"
    assert look["schedule"].day_of_week == report["schedule"].day_of_week == {1}
    # The report is built at 03:00 UTC on Monday; the look follows at 04:00.
    assert report["schedule"].hour == {3} and look["schedule"].hour == {4}


def test_a_queue_crowding_out_its_cohort_gets_a_borrowing_limit(history):
    # Both weeks vision borrowed 840 of the 1000 GPU-hours nlp lent on h100 (84 % ≥ 60 %)
    # while nlp waited 2 h at p95; 840 GPU-h ÷ 168 h = 5 GPUs, the median of 5 and 5.
    crowded_out(history, "vision", 840.0, "nlp", 1000.0, 7200.0)
    look_for_suggestions_task()
    found = PolicySuggestion.objects.get(kind="add-borrowing-limit")
    assert (found.queue.name, found.flavor, found.state) == ("vision", "h100", "offered")
    assert found.title == "Limit borrowing of vision on h100: no limit → 5 GPUs"
    [h100] = [q for q in found.proposal["quotas"] if q["flavor"] == "h100"]
    assert (h100["nominal"], h100["borrowing_limit"]) == ("16", "5")
    assert found.whatif_run.draft == {"vision": found.proposal}


def test_a_starving_team_gets_a_higher_weight_where_fair_sharing_is_on(history, settings):
    # nlp received 30 % of an entitled 50 % both weeks and waited 2 h at p95:
    # weight 1 × 0.5 / 0.3 = 1.67, rounded up to one decimal: 1.7.
    starved(history, "nlp", 0.30, 7200.0)
    settings.QM_KUEUE_FAIR_SHARING = False
    look_for_suggestions_task()
    assert not PolicySuggestion.objects.filter(kind="raise-starving-weight").exists()
    settings.QM_KUEUE_FAIR_SHARING = True
    look_for_suggestions_task()
    found = PolicySuggestion.objects.get(kind="raise-starving-weight")
    assert (found.queue.name, found.state, found.proposal) == (
        "nlp",
        "offered",
        {"fair_weight": "1.7"},
    )
    assert found.title == "Raise the fair-sharing weight of nlp: 1 → 1.7"


def test_a_lending_limit_that_held_back_wanted_gpus_is_raised(history):
    # nlp: nominal 16, lendingLimit 10. On day 3 of each week nlp ran nothing (its one
    # workload ran on day 1), so 16 sat unused, 16 − 10 = 6 of them above the limit,
    # while vision waited 10 h for 4 h100 (4 ≤ 16 unused: it would have fit):
    # held back min(6, 4) = 4 GPUs × 10 h = 40 GPU-hours a week (≥ 24), 4 at most at once.
    # Proposed: 10 + median(4, 4) = 14 (≤ the nominal 16).
    for n, week in enumerate(history):
        waited("vision", 4, week, 10.0, f"w{n}")
    look_for_suggestions_task()
    found = PolicySuggestion.objects.get(kind="raise-lending-limit")
    assert (found.queue.name, found.flavor, found.state) == ("nlp", "h100", "offered")
    assert found.title == "Lend more of nlp on h100: 10 → 14 GPUs"
    assert found.evidence["rows"] == [[history[1], "40.0", "4"], [history[0], "40.0", "4"]]
    [h100] = [q for q in found.proposal["quotas"] if q["flavor"] == "h100"]
    assert (h100["nominal"], h100["lending_limit"]) == ("16", "14")
    assert found.whatif_run.draft == {"nlp": found.proposal}


def test_a_week_under_a_limit_that_lent_everything_held_nothing_back(history, admin):
    # As in the test above, vision waited 10 h for 4 h100 in both weeks. But from the
    # start of the newest week until now nlp lent all 16 (lendingLimit 16): that week
    # nothing sat above the limit, 0 GPU-hours held back (< 24), so no suggestion, though
    # today's limit (10 again, saved just now) would have held back 40.
    for n, week in enumerate(history):
        waited("vision", 4, week, 10.0, f"w{n}")
    nlp = Queue.objects.get(name="nlp")
    set_policy(nlp, admin, quotas=[quota("h100", "16", lending_limit="16")])
    # The audit is append-only and dated by the database at insert; to have it saved at
    # the newest week's start, the test alone dates the row back in SQL.
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {AuditEntry._meta.db_table} SET at = %s WHERE id = %s",
            [week_bounds(max(history))[0], AuditEntry.objects.latest("at", "pk").pk],
        )
    set_policy(nlp, admin, quotas=[quota("h100", "16", lending_limit="10")])
    look_for_suggestions_task()
    assert not PolicySuggestion.objects.filter(kind="raise-lending-limit").exists()


def test_a_lending_limit_is_left_alone_when_nobody_waited_for_it(history):
    look_for_suggestions_task()  # the recorded workloads were all admitted at once
    assert not PolicySuggestion.objects.filter(kind="raise-lending-limit").exists()


def test_a_raised_lending_limit_is_replayed_before_it_may_be_applied(
    history, eager_celery, django_capture_on_commit_callbacks
):
    for n, week in enumerate(history):
        waited("vision", 4, week, 10.0, f"w{n}")
    with django_capture_on_commit_callbacks(execute=True):
        look_for_suggestions_task()
    found = PolicySuggestion.objects.get(kind="raise-lending-limit")
    run = found.whatif_run
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    assert found.can_apply
    assert {t["team"] for t in run.result["teams"]} >= {"nlp", "vision"}
