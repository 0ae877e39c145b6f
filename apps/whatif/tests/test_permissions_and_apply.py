"""Who may run and see what-ifs, and applying a draft through the approval path."""

import pytest

from apps.queues.models import ChangeRequest, Queue
from apps.whatif import services
from apps.whatif.choices import RunStatus
from apps.whatif.models import WhatIfRun
from testkit.clients import api_as

pytestmark = pytest.mark.django_db
BIGGER = {"quotas": [{"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "40"}]}
SMALLER = {"quotas": [{"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "12"}]}


def _post(user, draft):
    return api_as(user).post("/api/v1/whatif/", {"draft": draft}, format="json")


def test_a_scientist_may_not_run_a_whatif(queue, scientist):
    assert _post(scientist, {"vision": SMALLER}).status_code == 403


def test_a_lead_may_not_draft_another_teams_queue(queue, other_queue, lead):
    assert _post(lead, {"nlp": SMALLER}).status_code == 403


def test_a_lead_runs_a_whatif_on_their_queue(queue, lead):
    response = _post(lead, {"vision": SMALLER})
    assert response.status_code == 202
    assert response.json()["status"] == RunStatus.QUEUED


def test_a_run_shows_what_its_draft_changes_and_whether_it_needs_approval(queue, lead, envelope):
    run = _post(lead, {"vision": BIGGER}).json()
    vision = run["changes"]["vision"]
    fields = {c["field"]: (c["before"], c["after"]) for c in vision["changes"]}
    assert fields["quotas[h100/nvidia.com/gpu].nominal"] == ("16", "40")
    # A proposal's quotas replace the queue's (as PUT does): leaving a100 out removes it.
    assert fields["quotas[a100/nvidia.com/gpu].nominal"] == ("8", None)
    assert vision["breaches"] and "24" in vision["breaches"][0]
    inside = _post(lead, {"vision": SMALLER}).json()["changes"]["vision"]
    assert inside["breaches"] == []


def test_an_invalid_draft_is_refused_with_its_errors(queue, lead):
    response = _post(lead, {"vision": {"fair_weight": "-1"}})
    assert response.status_code == 400
    assert "vision.fair_weight" in response.json()["errors"]


def test_leads_see_their_own_runs_and_admins_see_all(queue, other_queue, lead, other_lead, admin):
    mine = services.request_whatif({"vision": SMALLER}, actor=lead)
    assert api_as(lead).get(f"/api/v1/whatif/{mine.pk}/").status_code == 200
    assert api_as(other_lead).get(f"/api/v1/whatif/{mine.pk}/").status_code == 404
    assert api_as(admin).get(f"/api/v1/whatif/{mine.pk}/").status_code == 200
    assert api_as(other_lead).get("/api/v1/whatif/").json()["count"] == 0


def _finished(run):
    WhatIfRun.objects.filter(pk=run.pk).update(status=RunStatus.DONE)
    return WhatIfRun.objects.get(pk=run.pk)


def test_applying_beyond_the_envelope_files_a_change_request(queue, lead, envelope):
    run = _finished(services.request_whatif({"vision": BIGGER}, actor=lead))
    response = api_as(lead).post(f"/api/v1/whatif/{run.pk}/apply/", {}, format="json")
    assert response.status_code == 200
    assert response.json()["queues"][0]["change_request"]["status"] == "pending"
    assert ChangeRequest.objects.filter(queue=queue, requested_by=lead).exists()
    assert Queue.objects.get(pk=queue.pk).quotas.get(flavor__name="h100").nominal == "16"


def test_an_admin_applies_directly(queue, admin):
    run = _finished(services.request_whatif({"vision": BIGGER}, actor=admin))
    api_as(admin).post(f"/api/v1/whatif/{run.pk}/apply/", {}, format="json")
    assert Queue.objects.get(pk=queue.pk).quotas.get(flavor__name="h100").nominal == "40"


def test_an_unfinished_run_cannot_be_applied(queue, admin):
    run = services.request_whatif({"vision": BIGGER}, actor=admin)
    response = api_as(admin).post(f"/api/v1/whatif/{run.pk}/apply/", {}, format="json")
    assert response.status_code == 400


def test_the_queue_edit_page_starts_a_whatif(client, queue, lead):
    client.force_login(lead)
    page = client.get(f"/queues/{queue.pk}/edit/")
    assert b"What-if" in page.content
    form = {
        "version": queue.version,
        "fair_weight": "1",
        "queueing_strategy": "BestEffortFIFO",
        "stop_policy": "None",
        "reclaim_within_cohort": "Never",
        "within_cluster_queue": "Never",
        "borrow_within_cohort": "Never",
        "cohort": "research",
        "q|h100|nvidia.com/gpu|nominal": "12",
    }
    response = client.post(f"/queues/{queue.pk}/whatif/", form)
    run = WhatIfRun.objects.get()
    assert response.status_code == 302 and response.url == f"/whatif/{run.pk}/"
    assert run.draft["vision"]["quotas"][0]["nominal"] == "12"
    page = client.get(response.url)
    assert b"Replaying" in page.content and b'http-equiv="refresh"' in page.content
