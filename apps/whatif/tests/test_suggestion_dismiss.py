"""Dismissing a policy suggestion from its page: who may, what is kept and audited, and
that later looks do not offer the same draft again while its evidence is unchanged."""

import pytest
from django.test import Client

from apps.queues.models import AuditEntry
from apps.reports.models import WeeklyReport
from apps.whatif.choices import SuggestionState
from apps.whatif.models import PolicySuggestion, WhatIfRun
from apps.whatif.tasks import look_for_suggestions_task

pytestmark = pytest.mark.django_db
URL = "/whatif/suggestions/"


def post_dismiss(user, suggestion, reason=None):
    client = Client()
    client.force_login(user)
    body = {} if reason is None else {"reason": reason}
    return client.post(f"{URL}{suggestion.pk}/dismiss/", body, follow=False)


def dismissals_of(suggestion):
    return AuditEntry.objects.filter(object_type="policysuggestion", object_id=str(suggestion.pk))


@pytest.fixture
def vision(history):
    look_for_suggestions_task()
    return PolicySuggestion.objects.get(queue__name="vision")


def test_a_lead_dismisses_their_teams_suggestion_and_it_is_kept(vision, lead):
    response = post_dismiss(lead, vision, "we grow in March")
    assert response.status_code == 302 and response["Location"] == URL
    vision.refresh_from_db()
    assert vision.state == SuggestionState.DISMISSED
    assert (vision.dismissed_by, vision.dismissed_reason) == (lead, "we grow in March")
    assert vision.dismissed_at is not None
    client = Client()
    client.force_login(lead)
    html = client.get(URL).content.decode()
    offered, dismissed = html.split("<h2>Dismissed</h2>")
    assert "Lower vision on h100" not in offered and "No suggestions" in offered
    assert "Lower vision on h100: 16 → 3 GPUs" in dismissed
    assert f"<td>{lead.username}</td>" in dismissed and "<td>we grow in March</td>" in dismissed


def test_the_dismissal_is_audited_with_its_reason(vision, lead):
    post_dismiss(lead, vision, "we grow in March")
    [entry] = dismissals_of(vision)
    assert (entry.actor, entry.team, entry.reason) == (lead, vision.queue.team, "we grow in March")
    assert (entry.before, entry.after) == ({"state": "offered"}, {"state": "dismissed"})


def test_an_admin_dismisses_a_refused_one_without_a_reason(history, admin):
    look_for_suggestions_task()
    nlp = PolicySuggestion.objects.get(queue__name="nlp")
    assert nlp.state == SuggestionState.REFUSED
    assert post_dismiss(admin, nlp).status_code == 302
    nlp.refresh_from_db()
    assert (nlp.state, nlp.dismissed_by, nlp.dismissed_reason) == ("dismissed", admin, "")


def test_others_get_not_found_and_nothing_changes(vision, scientist, other_lead):
    for user in (scientist, other_lead):
        assert post_dismiss(user, vision, "no").status_code == 404
    vision.refresh_from_db()
    assert vision.state == SuggestionState.OFFERED and vision.dismissed_by is None
    assert not dismissals_of(vision).exists()


def test_an_overlong_reason_is_refused_naming_the_field_and_nothing_is_written(vision, lead):
    response = post_dismiss(lead, vision, "x" * 501)  # the column holds 500
    assert response.status_code == 400
    html = response.content.decode()
    assert "reason: Ensure this value has at most 500 characters (it has 501)." in html
    assert "For example: we grow in March." in html
    vision.refresh_from_db()
    assert vision.state == SuggestionState.OFFERED and not dismissals_of(vision).exists()


def test_dismissing_twice_leaves_one_dismissal(vision, lead, admin):
    post_dismiss(lead, vision, "first")
    client = Client()
    client.force_login(admin)
    response = client.post(f"{URL}{vision.pk}/dismiss/", {"reason": "second"}, follow=True)
    assert "is dismissed, not open; nothing dismissed" in response.content.decode()
    vision.refresh_from_db()
    assert (vision.dismissed_by, vision.dismissed_reason) == (lead, "first")
    assert dismissals_of(vision).count() == 1


def test_the_weekly_look_does_not_offer_it_again_over_the_same_evidence(vision, lead):
    post_dismiss(lead, vision, "we grow in March")
    runs = WhatIfRun.objects.count()
    look_for_suggestions_task()
    assert PolicySuggestion.objects.filter(queue__name="vision").count() == 1
    vision.refresh_from_db()
    assert vision.state == SuggestionState.DISMISSED and vision.dismissed_by == lead
    assert WhatIfRun.objects.count() == runs  # no new what-if for it


def test_a_rebuilt_report_that_changes_the_evidence_reopens_it(vision, lead, history):
    post_dismiss(lead, vision, "we grow in March")
    # Same weeks, same draft, other figures: vision idle 2200 of 2688 (82 %, still ≥ 50 %).
    for report in WeeklyReport.objects.filter(week=history[0]):
        for team in report.data["cost"]["teams"]:
            if team["team"] == "vision":
                team["idle_by_flavor"][0]["idle_gpu_hours"] = 2200.0
        report.save()
    look_for_suggestions_task()
    [again] = PolicySuggestion.objects.filter(queue__name="vision")
    assert again.state == SuggestionState.OFFERED and again.dismissed_by is None
    assert [history[0], "2688.0", "2200.0", "82 %"] in again.evidence["rows"]  # 2200/2688
