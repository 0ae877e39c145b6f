"""GET /api/v1/suggestions/ and /{id}/, POST /{id}/dismiss/: scoped as the page, filters,
the detail's evidence, dry run and what-if figures, and dismissing through the API."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from apps.queues.models import AuditEntry
from apps.whatif.choices import RunStatus, SuggestionState
from apps.whatif.models import PolicySuggestion
from apps.whatif.tasks import look_for_suggestions_task

pytestmark = pytest.mark.django_db
API = "/api/v1/suggestions/"


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def listed(user, query="") -> list[str]:
    response = api(user).get(API + query)
    assert response.status_code == 200, response.content
    return sorted(row["queue"] for row in response.json()["results"])


@pytest.fixture
def looked(history):
    look_for_suggestions_task()  # vision offered, nlp refused by the cluster
    return {s.queue.name: s for s in PolicySuggestion.objects.select_related("queue")}


def test_the_list_is_scoped_like_the_page(looked, lead, other_lead, admin, scientist):
    assert listed(admin) == ["nlp", "vision"]
    assert listed(lead) == ["vision"]
    assert listed(other_lead) == []  # nlp's lead: its only draft was refused by the cluster
    assert listed(scientist) == []  # as /api/v1/whatif/: an empty list, not a 403


def test_it_filters_by_team_and_state(looked, admin):
    assert listed(admin, "?team=nlp") == ["nlp"]
    assert listed(admin, "?state=offered") == ["vision"]
    assert listed(admin, "?state=refused&team=vision") == []


def test_an_unknown_state_is_refused_naming_the_field(looked, admin):
    response = api(admin).get(API + "?state=open")
    assert response.status_code == 400
    assert response.json()["field"] == "state"


def test_the_list_is_paginated_and_its_times_end_in_z(looked, lead, settings):
    settings.API_PAGE_SIZE = 1
    body = api(lead).get(API).json()
    assert body["count"] == 1 and len(body["results"]) == 1
    [row] = body["results"]
    assert row["created_at"].endswith("Z") and row["checked_at"].endswith("Z")
    assert (row["team"], row["state"], row["can_apply"]) == ("vision", "offered", False)


def test_the_detail_has_evidence_dry_run_and_whatif(looked, lead, other_lead):
    vision = looked["vision"]
    response = api(lead).get(f"{API}{vision.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert body["title"] == "Lower vision on h100: 16 → 3 GPUs"
    assert body["evidence"]["facts"]["proposed_nominal"] == 3  # the peak, 2 + 1 GPUs
    assert [row[3] for row in body["evidence"]["rows"]] == ["74 %", "74 %"]  # 2000 / 2688
    assert body["dry_run"]["accepted"] is True and body["dry_run"]["checked_at"].endswith("Z")
    # Outside on_commit its replays are never sent: queued, no figures yet.
    assert body["whatif"]["status"] == RunStatus.QUEUED
    assert body["whatif"]["figures"] is None and body["whatif"]["money"] is None
    assert api(other_lead).get(f"{API}{vision.pk}/").status_code == 404


def test_a_refused_drafts_detail_carries_the_clusters_answer(looked, admin, other_lead):
    nlp = looked["nlp"]
    body = api(admin).get(f"{API}{nlp.pk}/").json()
    assert body["dry_run"]["accepted"] is False
    assert "must be less than or equal to the nominalQuota" in body["dry_run"]["message"]
    assert body["whatif"] is None
    assert api(other_lead).get(f"{API}{nlp.pk}/").status_code == 404  # shown to admins only


def test_the_detail_shows_the_finished_whatifs_figures_and_money(
    history, lead, eager_celery, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        look_for_suggestions_task()
    vision = PolicySuggestion.objects.get(queue__name="vision")
    run = vision.whatif_run
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    whatif = api(lead).get(f"{API}{vision.pk}/").json()["whatif"]
    assert whatif["progress_percent"] == 100
    assert {t["team"] for t in whatif["figures"]["teams"]} >= {"vision"}
    money = run.result["money"]["total"]
    assert whatif["money"]["total"] == money
    assert whatif["figures"]["cost"]["change"] == money["change"]["cost_usd"]


def test_a_lead_dismisses_through_the_api(looked, lead):
    vision = looked["vision"]
    response = api(lead).post(f"{API}{vision.pk}/dismiss/", {"reason": "we grow in March"})
    assert response.status_code == 200
    body = response.json()
    assert (body["state"], body["dismissed_by"]) == ("dismissed", lead.username)
    assert body["dismissed_reason"] == "we grow in March" and body["dismissed_at"].endswith("Z")
    again = api(lead).post(f"{API}{vision.pk}/dismiss/", {})
    assert again.status_code == 409 and again.json()["code"] == "not_open"
    assert AuditEntry.objects.filter(object_type="policysuggestion").count() == 1


def test_bad_dismissals_are_refused_and_write_nothing(looked, lead, scientist):
    vision = looked["vision"]
    too_long = api(lead).post(f"{API}{vision.pk}/dismiss/", {"reason": "x" * 501})
    assert too_long.status_code == 400 and too_long.json()["field"] == "reason"
    assert "at most 500 characters" in too_long.json()["detail"]
    unknown = api(lead).post(f"{API}{vision.pk}/dismiss/", {"why": "no"})
    assert unknown.status_code == 400
    assert api(scientist).post(f"{API}{vision.pk}/dismiss/", {}).status_code == 404
    vision.refresh_from_db()
    assert vision.state == SuggestionState.OFFERED
    assert not AuditEntry.objects.filter(object_type="policysuggestion").exists()


def test_the_list_costs_the_same_queries_for_more_suggestions(looked, admin):
    def queries() -> int:
        with CaptureQueriesContext(connection) as run:
            assert api(admin).get(API).status_code == 200
        return len(run)

    two = queries()
    vision = looked["vision"]
    for n in range(3):
        vision.pk, vision.fingerprint = None, f"copy-{n}"
        vision.save()
    assert queries() == two
