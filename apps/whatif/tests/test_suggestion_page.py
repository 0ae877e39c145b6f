"""The Suggestions page over stored reports and a real (simulated) cluster: who sees
what, the cluster's dry run hiding what it would refuse, and the "Look again now" button.
The weekly job and its stored rows are in test_suggestion_job.py."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from apps.reports.compute.weeks import week_bounds
from apps.whatif.models import PolicySuggestion, WhatIfRun
from apps.whatif.tasks import look_for_suggestions_task
from apps.whatif.tests.suggestion_history import crowded_out

pytestmark = pytest.mark.django_db
URL = "/whatif/suggestions/"


def page(user) -> tuple[int, str]:
    client = Client()
    client.force_login(user)
    response = client.get(URL)
    return response.status_code, response.content.decode()


def test_a_scientist_may_not_see_suggestions(history, scientist):
    assert page(scientist)[0] == 403
    client = Client()
    client.force_login(scientist)
    assert client.post(URL + "refresh/").status_code == 403
    assert PolicySuggestion.objects.count() == 0


def test_a_lead_sees_their_teams_suggestion_with_its_evidence(history, lead):
    look_for_suggestions_task()
    status, html = page(lead)
    assert status == 200
    assert "Lower vision on h100: 16 → 3 GPUs" in html
    assert "2000.0" in html and "74 %" in html  # 2000 / 2688 = 74.4 %
    assert "nlp" not in html


def test_a_suggestion_the_cluster_refuses_is_not_offered(history, other_lead, admin):
    look_for_suggestions_task()
    status, html = page(other_lead)
    assert status == 200
    assert "Lower nlp" not in html and "No suggestions" in html
    _, admin_html = page(admin)
    assert "Lower vision on h100: 16 → 3 GPUs" in admin_html
    assert "Refused by the cluster" in admin_html
    assert "must be less than or equal to the nominalQuota" in admin_html
    # Only in the refused table: no what-if, no apply for it.
    offered = admin_html.split("Refused by the cluster")[0]
    assert "Lower nlp" not in offered
    assert [list(r.draft) for r in WhatIfRun.objects.all()] == [["vision"]]


def test_looking_again_stores_a_leads_suggestions_and_starts_its_whatif(history, lead):
    client = Client()
    client.force_login(lead)
    response = client.post(URL + "refresh/")
    assert response.status_code == 302 and response["Location"] == URL
    # The lead's look judges only the queues the lead may edit: vision, not nlp.
    [stored] = PolicySuggestion.objects.all()
    assert (stored.queue.name, stored.state) == ("vision", "offered")
    run = stored.whatif_run
    assert run.requested_by == lead
    [h100] = [q for q in run.draft["vision"]["quotas"] if q["flavor"] == "h100"]
    assert h100["nominal"] == "3"
    # The window reaches back to the older week's Monday.
    assert run.window_start <= week_bounds(history[0])[0]
    assert f'href="/whatif/{run.pk}/"' in page(lead)[1]


def test_the_weekly_report_links_leads_to_the_suggestions(settings, queue, lead, scientist):
    from django.urls import reverse

    from apps.reports import services as report_services
    from testkit import promdata

    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""
    report_services.build_weekly_report(promdata.WEEK)
    for user, linked in ((lead, True), (scientist, False)):
        client = Client()
        client.force_login(user)
        response = client.get(reverse("reports:week", args=[promdata.WEEK]))
        assert response.status_code == 200
        assert (f'href="{URL}"' in response.content.decode()) is linked


def test_the_page_costs_as_many_queries_for_two_suggestions_as_for_one(history, admin):
    client = Client()
    client.force_login(admin)

    def queries() -> int:
        with CaptureQueriesContext(connection) as run:
            assert client.get(URL).status_code == 200
        return len(run)

    look_for_suggestions_task()
    one = queries()
    # vision now also crowds out nlp: a second offered suggestion (with its what-if).
    crowded_out(history, "vision", 840.0, "nlp", 1000.0, 7200.0)
    look_for_suggestions_task()
    assert PolicySuggestion.objects.filter(state="offered").count() == 2
    assert queries() == one
